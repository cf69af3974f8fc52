//! The Cypher AST graphlancer generates, mutates and renders. It covers the
//! language the generator produces, not all of Cypher.

use graphlancer_model::Value;
use serde::{Deserialize, Serialize};

mod walk;

/// A whole query: one or more single queries joined by UNION.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Query {
    /// The single queries; more than one means UNION.
    pub parts: Vec<SingleQuery>,
    /// UNION ALL rather than UNION.
    pub union_all: bool,
    /// How it is written where openCypher has synonyms.
    #[serde(default, skip_serializing_if = "Spelling::is_plain")]
    pub spelling: Spelling,
}

/// How a query is written where openCypher offers synonyms: choices that
/// never change what it means, so the generator, the checker, the reference
/// and the reducer ignore them and only the renderer reads them. Each is
/// a production of its own (a profile can refuse it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Spelling {
    /// ORDER BY keys: `ASC`/`DESC` written out (`Short`) or `ASCENDING`/`DESCENDING` (`Long`).
    pub order_keywords: OrderKeywords,
    /// An undirected relationship as `<-[]->` (either direction) rather than `-[]-`.
    pub both_arrows: bool,
    /// A relationship with nothing between its brackets as `-->`, `<--`, `--`.
    pub abbreviated: bool,
    /// String literals in double quotes.
    pub double_quotes: bool,
    /// Float literals in scientific notation (`2.5E-1`).
    pub float_exponent: bool,
    /// Float literals below one without the `0` (`.25`).
    pub float_leading_point: bool,
    /// Integer literals from 8 up in hexadecimal (`0x1F`) or octal (`0o17`).
    pub integer_bases: bool,
    /// `EXISTS { MATCH p }` without WHERE as `EXISTS { p }`.
    pub exists_pattern: bool,
    /// `properties(n)` as the map projection `n{.*}`.
    pub all_properties_projection: bool,
    /// SKIP as OFFSET.
    pub offset: bool,
    /// UNION as UNION DISTINCT.
    pub union_distinct: bool,
    /// RETURN and WITH without DISTINCT as RETURN ALL, WITH ALL.
    pub return_all: bool,
    /// A node pattern's one label as `IS L` rather than `:L`.
    pub is_label: bool,
    /// `(a op b) AND (b op c)` with the same `b` as `a op b op c`.
    pub chained_comparisons: bool,
    /// Equal variable-length bounds as `*n`, a lower bound of 1 left out as `*..m`.
    pub short_lengths: bool,
    /// Positive number literals with a unary plus: `+5`.
    pub unary_plus: bool,
    /// Property reads `e.k` as `e['k']`.
    pub dynamic_properties: bool,
    /// `size([(a)-->() | 1])` as `COUNT { (a)-->() }`.
    pub count_subquery: bool,
    /// A MATCH's WHERE conjunct on one node as `(n WHERE p)`.
    pub node_where: bool,
    /// A MATCH's WHERE conjunct on one relationship as `-[r WHERE p]->`.
    pub rel_where: bool,
    /// Several labels of a node pattern or label test as the label
    /// expression `:A&B` rather than `:A:B`.
    pub label_and: bool,
    /// `(n:A) OR (n:B)` as the label expression `n:A|B`.
    pub label_or: bool,
    /// `NOT (n:A)` as the label expression `n:!A`.
    pub label_not: bool,
    /// A simple CASE's WHENs with one result as one list: `WHEN a, b THEN r`.
    pub when_list: bool,
    /// A variable-length relationship without a variable or properties as a
    /// quantified relationship: `-[:T]->{1,3}`.
    pub quantified: bool,
    /// A MATCH of one pattern with a WHERE as a parenthesized path pattern:
    /// `MATCH ((a)-->(b) WHERE p)`.
    pub parenthesized: bool,
}

/// How ORDER BY directions are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderKeywords {
    /// Ascending implied, `DESC`.
    #[default]
    Implied,
    /// `ASC`, `DESC`.
    Short,
    /// `ASCENDING`, `DESCENDING`.
    Long,
}

impl Spelling {
    /// The plain spelling: no synonym used.
    pub fn is_plain(&self) -> bool {
        *self == Spelling::default()
    }
}

impl Query {
    /// Whether any clause writes, inside CALL subqueries too.
    pub fn writes(&self) -> bool {
        self.parts.iter().any(SingleQuery::writes)
    }
}

/// A sequence of clauses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SingleQuery {
    /// The clauses, in order.
    pub clauses: Vec<Clause>,
}

impl SingleQuery {
    /// Whether any clause writes, inside CALL subqueries too.
    pub fn writes(&self) -> bool {
        Clause::any_nested(&self.clauses, &Clause::is_write)
    }
}

/// One clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Clause {
    /// `[OPTIONAL] MATCH patterns [WHERE e]`.
    Match {
        /// OPTIONAL MATCH.
        optional: bool,
        /// Comma-separated patterns.
        patterns: Vec<PathPattern>,
        /// Conditions that keep the answer the same on every engine
        /// (relationship uniqueness spelled out, relationships referenced);
        /// mutations never remove them. Rendered first in WHERE.
        guard: Option<Expr>,
        /// The WHERE predicate proper.
        predicate: Option<Expr>,
    },
    /// `UNWIND list AS alias`.
    Unwind {
        /// The list.
        list: Expr,
        /// The new variable.
        alias: String,
    },
    /// `WITH ...`.
    With(Projection),
    /// `RETURN ...`.
    Return(Projection),
    /// `CREATE patterns`.
    Create {
        /// Directed, fixed-length patterns.
        patterns: Vec<PathPattern>,
    },
    /// `MERGE pattern [ON CREATE SET ...] [ON MATCH SET ...]`.
    Merge {
        /// One directed, fixed-length pattern.
        pattern: PathPattern,
        /// ON CREATE SET items.
        on_create: Vec<SetItem>,
        /// ON MATCH SET items.
        on_match: Vec<SetItem>,
    },
    /// `SET items`.
    Set {
        /// The items.
        items: Vec<SetItem>,
    },
    /// `REMOVE items`.
    Remove {
        /// The items.
        items: Vec<RemoveItem>,
    },
    /// `[DETACH] DELETE variables`.
    Delete {
        /// DETACH DELETE.
        detach: bool,
        /// The deleted variables.
        variables: Vec<String>,
    },
    /// `FOREACH (v IN list | updates)`.
    Foreach {
        /// The loop variable.
        variable: String,
        /// The list.
        list: Expr,
        /// Updating clauses.
        body: Vec<Clause>,
    },
    /// `CALL { WITH imports ... RETURN ... }`.
    Call {
        /// Variables imported into the subquery.
        imports: Vec<String>,
        /// The subquery, ending in RETURN.
        body: SingleQuery,
        /// Further parts joined to `body` by UNION ALL, each importing the
        /// same variables and returning the same columns.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        union_all: Vec<SingleQuery>,
    },
    /// `CALL db.labels() YIELD label AS alias [WHERE p]`: a catalogue
    /// procedure ([`PROCEDURES`]) and its one column, renamed.
    Procedure {
        /// The procedure's name.
        name: String,
        /// The variable its column is bound to.
        alias: String,
        /// YIELD's WHERE.
        predicate: Option<Expr>,
    },
}

/// The catalogue procedures FalkorDB and ArcadeDB share, with the column
/// each yields (a string per row).
pub const PROCEDURES: [(&str, &str); 2] = [("db.labels", "label"), ("db.relationshipTypes", "relationshipType")];

/// The column a catalogue procedure yields; `None` for another procedure.
pub fn procedure_column(name: &str) -> Option<&'static str> {
    PROCEDURES.iter().find(|(p, _)| *p == name).map(|(_, c)| *c)
}

impl Clause {
    /// Whether `holds` is true of a clause of `clauses` or of a FOREACH or
    /// CALL body inside them.
    pub fn any_nested(clauses: &[Clause], holds: &dyn Fn(&Clause) -> bool) -> bool {
        clauses.iter().any(|c| {
            holds(c)
                || match c {
                    Clause::Foreach { body, .. } => Clause::any_nested(body, holds),
                    Clause::Call { body, union_all, .. } => {
                        std::iter::once(body).chain(union_all).any(|b| Clause::any_nested(&b.clauses, holds))
                    }
                    _ => false,
                }
        })
    }

    /// The clause's kind as written: `MATCH`, `OPTIONAL MATCH`, `CALL { }`,
    /// `CALL procedure`, ...
    pub fn keyword(&self) -> &'static str {
        match self {
            Clause::Match { optional: false, .. } => "MATCH",
            Clause::Match { optional: true, .. } => "OPTIONAL MATCH",
            Clause::Unwind { .. } => "UNWIND",
            Clause::Call { .. } => "CALL { }",
            Clause::Procedure { .. } => "CALL procedure",
            Clause::With(_) => "WITH",
            Clause::Return(_) => "RETURN",
            Clause::Create { .. } => "CREATE",
            Clause::Merge { .. } => "MERGE",
            Clause::Set { .. } => "SET",
            Clause::Remove { .. } => "REMOVE",
            Clause::Delete { .. } => "DELETE",
            Clause::Foreach { .. } => "FOREACH",
        }
    }

    /// Whether the clause is an updating clause of Cypher's grammar.
    pub fn is_write(&self) -> bool {
        matches!(
            self,
            Clause::Create { .. }
                | Clause::Merge { .. }
                | Clause::Set { .. }
                | Clause::Remove { .. }
                | Clause::Delete { .. }
                | Clause::Foreach { .. }
        )
    }
}

/// The body of WITH and RETURN.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Projection {
    /// DISTINCT.
    pub distinct: bool,
    /// `*`, then the items.
    pub star: bool,
    /// Projected expressions with their aliases.
    pub items: Vec<(Expr, String)>,
    /// WHERE (WITH only).
    pub predicate: Option<Expr>,
    /// ORDER BY keys, `true` for DESC.
    pub order_by: Vec<(Expr, bool)>,
    /// SKIP.
    pub skip: Option<u32>,
    /// LIMIT.
    pub limit: Option<u32>,
}

impl Projection {
    /// `items` alone: no DISTINCT, `*`, WHERE, ORDER BY, SKIP or LIMIT.
    pub fn of(items: Vec<(Expr, String)>) -> Self {
        Self { distinct: false, star: false, items, predicate: None, order_by: Vec::new(), skip: None, limit: None }
    }
}

/// `[name =] (a)-[r]->(b)...`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathPattern {
    /// A path variable.
    pub name: Option<String>,
    /// The first node.
    pub start: NodePattern,
    /// Relationships and the nodes they lead to.
    pub hops: Vec<(RelPattern, NodePattern)>,
}

impl PathPattern {
    /// The variables the pattern names: its path, nodes and relationships.
    pub fn variables(&self) -> impl Iterator<Item = &String> {
        self.name
            .iter()
            .chain(&self.start.variable)
            .chain(self.hops.iter().flat_map(|(r, n)| r.variable.iter().chain(&n.variable)))
    }
}

/// `(v:L1:L2 {k: e})`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodePattern {
    /// The variable.
    pub variable: Option<String>,
    /// Labels, all required.
    pub labels: Vec<String>,
    /// Property constraints.
    pub properties: Vec<(String, Expr)>,
}

/// Direction of a relationship pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    /// `-[]->`.
    Out,
    /// `<-[]-`.
    In,
    /// `-[]-`.
    Both,
}

/// `-[r:T1|T2*1..2 {k: e}]->`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelPattern {
    /// The variable.
    pub variable: Option<String>,
    /// Type alternatives.
    pub types: Vec<String>,
    /// Direction.
    pub direction: Direction,
    /// Variable length `*min..max`.
    pub length: Option<(u32, u32)>,
    /// Property constraints.
    pub properties: Vec<(String, Expr)>,
}

/// An item of SET.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SetItem {
    /// `v.k = e`.
    Property(String, String, Expr),
    /// `v += {map}`.
    MergeMap(String, Vec<(String, Expr)>),
    /// `v = {map}`.
    ReplaceMap(String, Vec<(String, Expr)>),
    /// `v:L`.
    Label(String, String),
}

/// An item of REMOVE.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RemoveItem {
    /// `v.k`.
    Property(String, String),
    /// `v:L`.
    Label(String, String),
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
    /// `^`.
    Pow,
    /// `=`.
    Eq,
    /// `<>`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `AND`.
    And,
    /// `OR`.
    Or,
    /// `XOR`.
    Xor,
    /// `STARTS WITH`.
    StartsWith,
    /// `ENDS WITH`.
    EndsWith,
    /// `CONTAINS`.
    Contains,
    /// `=~`.
    Regex,
    /// `IN`.
    In,
}

impl BinOp {
    /// The operator's text.
    pub fn text(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Pow => "^",
            BinOp::Eq => "=",
            BinOp::Ne => "<>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "AND",
            BinOp::Or => "OR",
            BinOp::Xor => "XOR",
            BinOp::StartsWith => "STARTS WITH",
            BinOp::EndsWith => "ENDS WITH",
            BinOp::Contains => "CONTAINS",
            BinOp::Regex => "=~",
            BinOp::In => "IN",
        }
    }
}

/// List quantifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Quantifier {
    /// `all(...)`.
    All,
    /// `any(...)`.
    Any,
    /// `none(...)`.
    None,
    /// `single(...)`.
    Single,
}

/// An expression.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    /// A literal value (scalars, lists and maps of them).
    Literal(Value),
    /// A variable.
    Variable(String),
    /// `e.k`.
    Property(Box<Expr>, String),
    /// `a op b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `NOT e`.
    Not(Box<Expr>),
    /// `-e`.
    Negate(Box<Expr>),
    /// `e IS [NOT] NULL`.
    IsNull {
        /// The operand.
        expr: Box<Expr>,
        /// IS NOT NULL.
        negated: bool,
    },
    /// `f(args)`.
    Function(String, Vec<Expr>),
    /// `agg([DISTINCT] arg)`; `count(*)` when `arg` is None.
    Aggregate {
        /// Function name.
        name: String,
        /// DISTINCT.
        distinct: bool,
        /// The argument; None for `count(*)`.
        arg: Option<Box<Expr>>,
        /// The second argument of percentileCont and percentileDisc: the
        /// percentile, a number from 0 to 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        percentile: Option<f64>,
    },
    /// `CASE [subject] WHEN .. THEN .. ELSE .. END`.
    Case {
        /// The simple form's subject.
        subject: Option<Box<Expr>>,
        /// WHEN/THEN pairs.
        branches: Vec<(Expr, Expr)>,
        /// ELSE.
        otherwise: Option<Box<Expr>>,
    },
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `l[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// `l[a..b]`.
    Slice(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// `[x IN l WHERE p | e]`.
    ListComprehension {
        /// The element variable.
        variable: String,
        /// The list.
        list: Box<Expr>,
        /// The filter.
        filter: Option<Box<Expr>>,
        /// The mapping.
        map: Option<Box<Expr>>,
    },
    /// `[(a)-->(b) WHERE p | e]`.
    PatternComprehension {
        /// The pattern.
        pattern: Box<PathPattern>,
        /// The filter.
        filter: Option<Box<Expr>>,
        /// The projection.
        map: Box<Expr>,
    },
    /// `all(x IN l WHERE p)` and friends.
    Quantified {
        /// Which quantifier.
        quantifier: Quantifier,
        /// The element variable.
        variable: String,
        /// The list.
        list: Box<Expr>,
        /// The predicate.
        predicate: Box<Expr>,
    },
    /// `reduce(acc = init, x IN l | e)`.
    Reduce {
        /// The accumulator.
        accumulator: String,
        /// Its initial value.
        init: Box<Expr>,
        /// The element variable.
        variable: String,
        /// The list.
        list: Box<Expr>,
        /// The step.
        step: Box<Expr>,
    },
    /// `{k: e}`.
    Map(Vec<(String, Expr)>),
    /// `v{.k1, .k2}`.
    MapProjection(String, Vec<String>),
    /// `v{.k1, k2: e, x}`: property selectors, then entries of their own; an
    /// entry `x: x` is written as the variable selector `x`.
    MapProjectionWith {
        /// The projected variable.
        base: String,
        /// Property selectors `.k`.
        keys: Vec<String>,
        /// Entries `k: e`.
        entries: Vec<(String, Expr)>,
    },
    /// `EXISTS { MATCH pattern [WHERE p] }`.
    ExistsSubquery(Box<PathPattern>, Option<Box<Expr>>),
    /// A pattern used as a predicate: `exists((a)-->())`.
    PatternPredicate(Box<PathPattern>),
    /// `v:L1:L2`, true where the node has every label.
    HasLabels(String, Vec<String>),
    /// `shortestPath((a)-[:T*min..max]->(b))` between two bound nodes: a
    /// shortest path, or null where none is. Which of several shortest
    /// paths comes back is the engine's choice; its length is not.
    ShortestPath(Box<PathPattern>),
}

impl Expr {
    /// A literal.
    pub fn lit(v: Value) -> Expr {
        Expr::Literal(v)
    }

    /// `name([DISTINCT] arg)`, an aggregate of one argument.
    pub fn aggregate(name: &str, distinct: bool, arg: Expr) -> Expr {
        Expr::Aggregate { name: name.into(), distinct, arg: Some(Box::new(arg)), percentile: None }
    }

    /// A variable reference.
    pub fn var(name: &str) -> Expr {
        Expr::Variable(name.to_owned())
    }

    /// `a op b`.
    pub fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    /// `a AND b AND ...`, left-nested; `None` for no parts.
    pub fn and_all(parts: impl IntoIterator<Item = Expr>) -> Option<Expr> {
        parts.into_iter().reduce(|a, b| Expr::binary(BinOp::And, a, b))
    }

    /// The conjuncts of this expression: `a AND b AND c` split, in order.
    pub fn conjuncts(&self) -> Vec<&Expr> {
        match self {
            Expr::Binary(BinOp::And, a, b) => {
                let mut out = a.conjuncts();
                out.extend(b.conjuncts());
                out
            }
            e => vec![e],
        }
    }

    /// `count(*)`.
    pub fn count_star() -> Expr {
        Expr::Aggregate { name: "count".into(), distinct: false, arg: None, percentile: None }
    }

    /// Whether the expression contains an aggregate outside nested scopes.
    pub fn has_aggregate(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| found |= matches!(e, Expr::Aggregate { .. }));
        found
    }
}
