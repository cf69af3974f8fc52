//! The openCypher language as an outside standard for coverage: one entry
//! for each construct of the openCypher grammar (`grammar/openCypher.bnf` of
//! the openCypher repository, commit 677cbaf) and of the Cypher manual's
//! clause and function lists, mapped to the generator production that writes
//! it. `graphlancer generate --coverage` measures, per dialect, which
//! constructs generated queries contain, which the dialect's profile refuses
//! (with its evidence), and which no production writes (with the reason);
//! with engines named it also runs each construct's example on them, which
//! is the evidence of what an engine accepts.

use crate::feature::Feature;

/// Where a construct sits in the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    /// Statements (clauses) and their options.
    Clause,
    /// Pattern forms.
    Pattern,
    /// Operators and expression forms.
    Expression,
    /// Literals.
    Literal,
    /// Functions of the Cypher manual's function list.
    Function,
}

impl Group {
    /// The group's name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Group::Clause => "clause",
            Group::Pattern => "pattern",
            Group::Expression => "expression",
            Group::Literal => "literal",
            Group::Function => "function",
        }
    }
}

/// How generated queries show a construct.
#[derive(Debug, Clone, Copy)]
pub enum Detect {
    /// The production is recorded among the query's features.
    Feature(Feature),
    /// The production is recorded and the query's text holds this string
    /// (finer forms one production writes among others).
    Text(Feature, &'static str),
    /// The production is recorded and this test of the query's text holds.
    Check(Feature, fn(&str) -> bool),
    /// No production writes it; the reason.
    Missing(&'static str),
}

/// One construct of the language.
#[derive(Debug, Clone, Copy)]
pub struct Construct {
    /// What it is, as a reader of the grammar names it.
    pub name: &'static str,
    /// The grammar rule it comes from, or `manual` for the Cypher manual.
    pub rule: &'static str,
    /// Where it sits.
    pub group: Group,
    /// How generated queries show it.
    pub detect: Detect,
    /// A query using it against the probe graph (labels A and B with keys
    /// `k` integer and `s` string, type T with key `k`).
    pub example: &'static str,
}

impl Construct {
    /// The production that writes it, if one does.
    pub fn feature(&self) -> Option<Feature> {
        match self.detect {
            Detect::Feature(f) | Detect::Text(f, _) | Detect::Check(f, _) => Some(f),
            Detect::Missing(_) => None,
        }
    }

    /// The productions it needs: its own and the one it is an option of.
    pub fn needs(&self) -> Vec<Feature> {
        let own = self.feature();
        let parent = match own {
            Some(Feature::MergeOnCreate | Feature::MergeOnMatch) => Some(Feature::Merge),
            Some(Feature::ExistsPattern) => Some(Feature::ExistsSubquery),
            Some(Feature::MapProjectionAll) => Some(Feature::FnProperties),
            Some(Feature::SetItems) => Some(Feature::SetProperty),
            Some(Feature::CountSubquery) => Some(Feature::PatternComprehension),
            _ => None,
        };
        own.into_iter().chain(parent).collect()
    }

    /// The productions a probe turns off when an engine refuses this
    /// construct's example: only a construct that is exactly one production
    /// decides it. A finer form (a text test on a production) or the base
    /// production every query has would turn off far more than the engine
    /// refused. A function construct names several functions
    /// (`toLower / toUpper`), each written by a production of its own.
    pub fn probed_features(&self) -> Vec<Feature> {
        let own = match self.detect {
            Detect::Feature(f) if f != Feature::Match => f,
            _ => return Vec::new(),
        };
        let mut out = vec![own];
        if self.group == Group::Function {
            let names: Vec<&str> = self.name.split(" / ").collect();
            for f in crate::functions::FUNCTIONS {
                if names.contains(&f.name) && !out.contains(&f.feature) {
                    out.push(f.feature);
                }
            }
        }
        out
    }

    /// Whether a generated query with these features and this text shows it.
    pub fn shown_by(&self, features: &std::collections::BTreeSet<Feature>, text: &str) -> bool {
        match self.detect {
            Detect::Feature(f) => features.contains(&f),
            Detect::Text(f, s) => features.contains(&f) && text.contains(s),
            Detect::Check(f, test) => features.contains(&f) && test(text),
            Detect::Missing(_) => false,
        }
    }
}

/// A SET clause with two or more items: a comma before the next clause keyword.
/// Whether a `YIELD column AS alias` is followed by its WHERE.
fn yield_where(text: &str) -> bool {
    text.split("YIELD ").skip(1).any(|rest| rest.split(' ').nth(3) == Some("WHERE"))
}

fn several_set_items(text: &str) -> bool {
    text.split("SET ").skip(1).any(|rest| {
        let end = [
            " RETURN ",
            " WITH ",
            " MATCH ",
            " CREATE ",
            " MERGE ",
            " SET ",
            " REMOVE ",
            " DELETE ",
            " UNWIND ",
            " OPTIONAL ",
            " CALL ",
            " FOREACH ",
        ]
        .iter()
        .filter_map(|k| rest.find(k))
        .min()
        .unwrap_or(rest.len());
        let item = &rest[..end];
        // A comma outside brackets separates items.
        let mut depth = 0i32;
        item.chars().any(|ch| {
            match ch {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => return true,
                _ => {}
            }
            false
        })
    })
}

/// A string literal with an escape in it.
fn has_escape(text: &str) -> bool {
    text.contains('\\')
}

const fn c(name: &'static str, rule: &'static str, group: Group, detect: Detect, example: &'static str) -> Construct {
    Construct { name, rule, group, detect, example }
}

use Detect::{Feature as F, Missing as M, Text as T};
use Feature as P;
use Group::{Clause as CL, Expression as EX, Function as FN, Literal as LI, Pattern as PA};

const PARAMS: &str = "parameters need a value map passed beside the query, which not every adapter's protocol \
                      carries; a literal in its place tests the same evaluation";
const TEMPORAL: &str = "the value model (and so the graphs and the comparison of answers) has no temporal \
                        types; engines print them in formats of their own";
const SPATIAL: &str = "the value model has no points; of the engines here only FalkorDB and ArcadeDB have them";
const PATH_SEARCH: &str = "no engine here accepts a path search prefix (probe column: a syntax error on every one)";

/// Every construct, in grammar order, then the manual's function list.
pub const CONSTRUCTS: &[Construct] = &[
    // Statements.
    c("MATCH", "<simple match statement>", CL, F(P::Match), "MATCH (a:A) RETURN count(*)"),
    c("OPTIONAL MATCH", "<optional match statement>", CL, F(P::OptionalMatch), "OPTIONAL MATCH (a:A) RETURN count(*)"),
    c(
        "MATCH ... WHERE",
        "<graph pattern where clause>",
        CL,
        F(P::MatchWhere),
        "MATCH (a:A) WHERE a.k > 1 RETURN count(*)",
    ),
    c("UNWIND", "<unwind statement>", CL, F(P::Unwind), "UNWIND [1, 2] AS x RETURN x"),
    c("WITH", "<with statement>", CL, F(P::With), "MATCH (a:A) WITH a.k AS k RETURN k"),
    c(
        "WITH DISTINCT",
        "<with statement> <set quantifier>",
        CL,
        F(P::WithDistinct),
        "UNWIND [1, 1] AS x WITH DISTINCT x RETURN x",
    ),
    c(
        "WITH ... WHERE",
        "<with statement> <where clause>",
        CL,
        F(P::WithWhere),
        "UNWIND [1, 2] AS x WITH x WHERE x > 1 RETURN x",
    ),
    c("WITH ALL / RETURN ALL", "<set quantifier> ALL", CL, F(P::ReturnAll), "UNWIND [1, 1] AS x RETURN ALL x"),
    c("CREATE", "<create statement>", CL, F(P::Create), "CREATE (:A {k: 9, s: 'n'}) RETURN 1"),
    c("MERGE", "<merge statement>", CL, F(P::Merge), "MERGE (a:A {k: 1}) RETURN a.k"),
    c(
        "MERGE ... ON CREATE",
        "<merge action> ON CREATE",
        CL,
        F(P::MergeOnCreate),
        "MERGE (a:A {k: 8}) ON CREATE SET a.s = 'c' RETURN a.s",
    ),
    c(
        "MERGE ... ON MATCH",
        "<merge action> ON MATCH",
        CL,
        F(P::MergeOnMatch),
        "MERGE (a:A {k: 1}) ON MATCH SET a.s = 'm' RETURN a.s",
    ),
    c("SET property", "<set property item>", CL, F(P::SetProperty), "MATCH (a:A) SET a.k = 5 RETURN a.k"),
    c("SET n = map", "<set all properties item>", CL, F(P::SetReplaceMap), "MATCH (a:A) SET a = {k: 5} RETURN a.k"),
    c("SET n += map", "<add all properties item>", CL, F(P::SetMergeMap), "MATCH (a:A) SET a += {k: 5} RETURN a.k"),
    c("SET labels", "<set labels item>", CL, F(P::SetLabel), "MATCH (a:A) SET a:B RETURN count(*)"),
    c(
        "SET a, b (item list)",
        "<set item list>",
        CL,
        Detect::Check(P::SetItems, several_set_items),
        "MATCH (a:A) SET a.k = 1, a.s = 'x' RETURN a.k",
    ),
    c("REMOVE labels", "<remove labels item>", CL, F(P::RemoveLabel), "MATCH (a:A) REMOVE a:A RETURN count(*)"),
    c("REMOVE property", "<remove property item>", CL, F(P::RemoveProperty), "MATCH (a:A) REMOVE a.k RETURN count(*)"),
    c("DELETE", "<delete statement>", CL, F(P::Delete), "MATCH ()-[r:T]->() DELETE r RETURN count(*)"),
    c(
        "DETACH DELETE",
        "<delete statement> DETACH",
        CL,
        F(P::DetachDelete),
        "MATCH (a:A) DETACH DELETE a RETURN count(*)",
    ),
    c(
        "CALL procedure (in a query)",
        "<call procedure statement>",
        CL,
        F(P::CallProcedure),
        "CALL db.labels() YIELD label RETURN count(*)",
    ),
    c(
        "CALL procedure (standalone)",
        "<standalone procedure call>",
        CL,
        M(
            "the same call as in a query (generated) with its columns as the procedure names them; a generated query always goes on after it",
        ),
        "CALL db.labels()",
    ),
    c(
        "YIELD ... WHERE",
        "<yield clause>",
        CL,
        Detect::Check(P::CallProcedure, yield_where),
        "CALL db.labels() YIELD label WHERE label = 'A' RETURN label",
    ),
    c("RETURN", "<return statement>", CL, F(P::Match), "RETURN 1"),
    c(
        "RETURN DISTINCT",
        "<return statement body> <set quantifier>",
        CL,
        F(P::ReturnDistinct),
        "UNWIND [1, 1] AS x RETURN DISTINCT x",
    ),
    c("RETURN *", "<return item list> <asterisk>", CL, F(P::ReturnStar), "MATCH (a:A) RETURN *"),
    c("ORDER BY", "<order by clause>", CL, F(P::OrderBy), "UNWIND [2, 1] AS x RETURN x ORDER BY x"),
    c(
        "ASC / ASCENDING",
        "<ascending order>",
        CL,
        F(P::OrderByAscending),
        "UNWIND [2, 1] AS x RETURN x ORDER BY x ASCENDING",
    ),
    c("DESC", "<descending order> DESC", CL, F(P::OrderByDesc), "UNWIND [2, 1] AS x RETURN x ORDER BY x DESC"),
    c(
        "DESCENDING",
        "<descending order> DESCENDING",
        CL,
        T(P::OrderByAscending, " DESCENDING"),
        "UNWIND [2, 1] AS x RETURN x ORDER BY x DESCENDING",
    ),
    c("SKIP", "<offset clause> SKIP", CL, F(P::Skip), "UNWIND [1, 2] AS x RETURN x SKIP 1"),
    c("OFFSET", "<offset synonym> OFFSET", CL, F(P::Offset), "UNWIND [1, 2] AS x RETURN x ORDER BY x OFFSET 1"),
    c("LIMIT", "<limit clause>", CL, F(P::Limit), "UNWIND [1, 2] AS x RETURN x LIMIT 1"),
    c("UNION", "<composite conjunction> UNION", CL, F(P::Union), "RETURN 1 AS x UNION RETURN 2 AS x"),
    c("UNION ALL", "<set quantifier> ALL", CL, F(P::UnionAll), "RETURN 1 AS x UNION ALL RETURN 1 AS x"),
    c(
        "UNION DISTINCT",
        "<set quantifier> DISTINCT",
        CL,
        F(P::UnionDistinct),
        "RETURN 1 AS x UNION DISTINCT RETURN 1 AS x",
    ),
    c("CALL { } subquery", "manual: CALL subquery", CL, F(P::CallSubquery), "CALL { RETURN 1 AS x } RETURN x"),
    c("FOREACH", "manual: FOREACH", CL, F(P::Foreach), "MATCH (a:A) FOREACH (x IN [1] | SET a.k = x) RETURN count(*)"),
    c(
        "LOAD CSV",
        "manual: LOAD CSV",
        CL,
        M("reads files on the server; not a query over the graph"),
        "LOAD CSV FROM 'file:///x.csv' AS l RETURN l",
    ),
    // Patterns.
    c(
        "named path p = ...",
        "<path variable declaration>",
        PA,
        F(P::NamedPath),
        "MATCH p = (a:A)-[:T]->() RETURN length(p)",
    ),
    c("pattern list (a), (b)", "<path pattern list>", PA, F(P::MultiplePatterns), "MATCH (a:A), (b:B) RETURN count(*)"),
    c(
        "ALL / ANY path search prefix",
        "<all path search> <any path search>",
        PA,
        M(PATH_SEARCH),
        "MATCH ANY (a:A)-[:T]->(b) RETURN count(*)",
    ),
    c(
        "SHORTEST path search prefix",
        "<shortest path search>",
        PA,
        M(PATH_SEARCH),
        "MATCH ANY SHORTEST (a:A)-[:T]->+(b:B) RETURN count(*)",
    ),
    c(
        "shortestPath()/allShortestPaths()",
        "<legacy shortest path pattern>",
        PA,
        M(
            "FalkorDB takes shortestPath() only in WITH and RETURN and allShortestPaths() only in MATCH, Grafeo's MATCH form loses its path variable, Kuzu and Memgraph write their own syntax: the expression form (generated) runs the same search on every engine that has one",
        ),
        "MATCH (a:A {k: 1}), (b:B) MATCH p = shortestPath((a)-[:T*]->(b)) RETURN length(p)",
    ),
    c(
        "quantified relationship -[:T]->{n,m}",
        "<quantified path primary> (an edge pattern)",
        PA,
        F(P::QuantifiedRelationship),
        "MATCH (a:A)-[:T]->{1,2}(b) RETURN count(*)",
    ),
    c(
        "parenthesized path with WHERE",
        "<parenthesized path pattern expression>",
        PA,
        F(P::ParenthesizedPath),
        "MATCH ((a:A)-[r:T]->(b) WHERE r.k > 0) RETURN count(*)",
    ),
    c("empty node ()", "<node pattern>", PA, T(P::Match, "()"), "MATCH ()-[r:T]->() RETURN count(*)"),
    c("node label :A", "<is node label expression>", PA, F(P::PatternLabel), "MATCH (a:A) RETURN count(*)"),
    c(
        "node labels :A:B",
        "<node label expression legacy>",
        PA,
        F(P::PatternMultiLabel),
        "MATCH (a:A:B) RETURN count(*)",
    ),
    c(
        "node properties {k: v}",
        "<element property specification>",
        PA,
        F(P::PatternProperties),
        "MATCH (a:A {k: 1}) RETURN count(*)",
    ),
    c(
        "node WHERE inside the pattern",
        "<element pattern where clause>",
        PA,
        F(P::NodeWhere),
        "MATCH (a:A WHERE a.k > 1) RETURN count(*)",
    ),
    c(
        "relationship ->",
        "<full relationship pointing right>",
        PA,
        T(P::Match, "]->"),
        "MATCH (a)-[r]->(b) RETURN count(*)",
    ),
    c(
        "relationship <-",
        "<full relationship pointing left>",
        PA,
        F(P::RelIncoming),
        "MATCH (a)<-[r]-(b) RETURN count(*)",
    ),
    c(
        "relationship - (any direction)",
        "<full relationship any direction>",
        PA,
        F(P::RelUndirected),
        "MATCH (a)-[r]-(b) RETURN count(*)",
    ),
    c(
        "relationship <-> (left or right)",
        "<full relationship left or right>",
        PA,
        F(P::RelBothArrows),
        "MATCH (a)<-[r]->(b) RETURN count(*)",
    ),
    c(
        "relationship without brackets -->",
        "<full relationship pointing right>",
        PA,
        F(P::RelAbbreviated),
        "MATCH (a)-->(b) RETURN count(*)",
    ),
    c(
        "relationship type alternatives :T|U",
        "<relationship label expression legacy>",
        PA,
        F(P::RelTypeAlternatives),
        "MATCH (a)-[r:T|T]->(b) RETURN count(*)",
    ),
    c(
        "relationship properties",
        "<element property specification>",
        PA,
        T(P::PatternProperties, "]-"),
        "MATCH (a)-[r:T {k: 1}]->(b) RETURN count(*)",
    ),
    c(
        "relationship WHERE inside the pattern",
        "<element pattern where clause>",
        PA,
        F(P::RelWhere),
        "MATCH (a)-[r:T WHERE r.k > 0]->(b) RETURN count(*)",
    ),
    c(
        "variable length *n..m",
        "<path length> <lower and upper bound path length>",
        PA,
        F(P::VarLength),
        "MATCH (a:A)-[:T*1..2]->(b) RETURN count(*)",
    ),
    c(
        "variable length * (unbounded)",
        "<path length> <asterisk>",
        PA,
        M(
            "an unbounded length enumerates exponentially many paths of a generated graph; bounded lengths test the same operator",
        ),
        "MATCH (a:A)-[:T*]->(b) RETURN count(*)",
    ),
    c(
        "variable length *n (fixed)",
        "<fixed path length>",
        PA,
        T(P::VarLengthShort, "]"),
        "MATCH (a:A)-[:T*2]->(b) RETURN count(*)",
    ),
    c(
        "variable length *..m / *n..",
        "<lower and upper bound path length> (one bound)",
        PA,
        T(P::VarLengthShort, "*.."),
        "MATCH (a:A)-[:T*..2]->(b) RETURN count(*)",
    ),
    c("label expression IS A", "<is label expression> IS", PA, F(P::IsLabel), "MATCH (a IS A) RETURN count(*)"),
    c("label expression A&B", "<label conjunction>", PA, F(P::LabelAnd), "MATCH (a:A&B) RETURN count(*)"),
    c("label expression A|B", "<label disjunction>", PA, F(P::LabelOr), "MATCH (a) WHERE a:A|B RETURN count(*)"),
    c("label expression !A", "<label negation>", PA, F(P::LabelNot), "MATCH (a) WHERE a:!A RETURN count(*)"),
    c(
        "label expression % and A|B in a node pattern",
        "<wildcard label> <label disjunction>",
        PA,
        M(
            "`%` (any label) has no counterpart the generator writes (every generated node has a label); `(a:A|B)` in a pattern would make a node pattern's labels a choice, which every oracle's pattern rewriting reads as all of them: written only as the label test n:A|B",
        ),
        "MATCH (a:A|B) RETURN count(*)",
    ),
    c(
        "CREATE path",
        "<create path pattern>",
        PA,
        T(P::Create, "]->"),
        "CREATE (:A {k: 7})-[:T {k: 7}]->(:B {k: 7}) RETURN 1",
    ),
    c(
        "CREATE relationship <-",
        "<create relationship pointing left>",
        PA,
        T(P::Create, "<-["),
        "MATCH (a:A {k: 1}), (b:B) CREATE (a)<-[:T]-(b) RETURN 1",
    ),
    c(
        "MERGE relationship",
        "<merge relationship pattern>",
        PA,
        T(P::Merge, "]-"),
        "MATCH (a:A {k: 1}), (b:B) MERGE (a)-[r:T]->(b) RETURN count(r)",
    ),
    // Expressions.
    c("OR", "<boolean value expression> OR", EX, F(P::Or), "RETURN true OR false"),
    c("XOR", "<boolean term xor> XOR", EX, F(P::Xor), "RETURN true XOR false"),
    c("AND", "<boolean term> AND", EX, F(P::And), "RETURN true AND false"),
    c("NOT", "<boolean factor> NOT", EX, F(P::Not), "RETURN NOT true"),
    c("= <>", "<simple comp op>", EX, F(P::Equality), "RETURN 1 = 1, 1 <> 2"),
    c("< > <= >=", "<simple comp op>", EX, F(P::Compare), "RETURN 1 < 2, 1 >= 2"),
    c(
        "chained comparison a < b < c",
        "<comparison predicate> (several part 2)",
        EX,
        F(P::ChainedComparison),
        "RETURN 1 < 2 < 3",
    ),
    c("CONTAINS", "<contains operator>", EX, F(P::Contains), "RETURN 'ab' CONTAINS 'b'"),
    c("IN", "<in operator>", EX, F(P::InList), "RETURN 1 IN [1, 2]"),
    c("=~", "<regex equals operator>", EX, F(P::Regex), "RETURN 'ab' =~ 'a.*'"),
    c("STARTS WITH", "<start with operator>", EX, F(P::StartsWith), "RETURN 'ab' STARTS WITH 'a'"),
    c("ENDS WITH", "<end with operator>", EX, F(P::EndsWith), "RETURN 'ab' ENDS WITH 'b'"),
    c("IS NULL", "<null predicate part 2>", EX, T(P::IsNull, " IS NULL"), "RETURN null IS NULL"),
    c("IS NOT NULL", "<null predicate part 2> NOT", EX, T(P::IsNull, " IS NOT NULL"), "RETURN 1 IS NOT NULL"),
    c("label predicate n:A", "<is labeled predicate part 2>", EX, F(P::LabelPredicate), "MATCH (a) RETURN a:A"),
    c("+ (numbers)", "<arithmetic value expression>", EX, F(P::Add), "RETURN 1 + 2"),
    c("-", "<arithmetic value expression>", EX, F(P::Subtract), "RETURN 1 - 2"),
    c("*", "<arithmetic term> <asterisk>", EX, F(P::Multiply), "RETURN 2 * 3"),
    c("/", "<arithmetic term> <solidus>", EX, F(P::Divide), "RETURN 7 / 2"),
    c("%", "<arithmetic term> <percent>", EX, F(P::Modulo), "RETURN 7 % 2"),
    c("^", "<arithmetic factor> <circumflex>", EX, F(P::Power), "RETURN 2 ^ 3"),
    c("unary -", "<arithmetic unary> <minus sign>", EX, F(P::Negate), "RETURN -(1)"),
    c("unary +", "<arithmetic unary> <plus sign>", EX, F(P::UnaryPlus), "RETURN +(1)"),
    c("+ (strings)", "<arithmetic value expression>", EX, F(P::StringConcat), "RETURN 'a' + 'b'"),
    c("+ (lists)", "<arithmetic value expression>", EX, F(P::ListConcat), "RETURN [1] + [2]"),
    c("property n.k", "<static property reference>", EX, T(P::Match, "."), "MATCH (a:A) RETURN a.k"),
    c("index l[i]", "<dynamic element reference>", EX, F(P::ListIndex), "RETURN [1, 2][0]"),
    c(
        "dynamic property n['k'] / m['k']",
        "<dynamic element reference>",
        EX,
        F(P::DynamicProperty),
        "MATCH (a:A) RETURN a['k']",
    ),
    c("slice l[a..b]", "<slicing>", EX, F(P::ListSlice), "RETURN [1, 2, 3][0..2]"),
    c("parameter $p", "<general parameter reference>", EX, M(PARAMS), "RETURN $p"),
    c("simple CASE", "<simple case>", EX, F(P::CaseSimple), "RETURN CASE 1 WHEN 1 THEN 'a' ELSE 'b' END"),
    c("simple CASE, WHEN a, b", "<when operand list>", EX, F(P::CaseWhenList), "RETURN CASE 1 WHEN 1, 2 THEN 'a' END"),
    c("searched CASE", "<search case>", EX, F(P::CaseGeneric), "RETURN CASE WHEN true THEN 'a' END"),
    c(
        "CASE without ELSE",
        "<case expression> (no <else clause>)",
        EX,
        F(P::CaseNoElse),
        "RETURN CASE WHEN false THEN 'a' END",
    ),
    c("count(*)", "<count star>", EX, F(P::CountStar), "MATCH (a) RETURN count(*)"),
    c(
        "EXISTS { pattern }",
        "<exists expression> <graph pattern>",
        EX,
        F(P::ExistsPattern),
        "MATCH (a:A) RETURN EXISTS { (a)-[:T]->() }",
    ),
    c(
        "EXISTS { MATCH ... }",
        "<exists expression> <procedure specification>",
        EX,
        F(P::ExistsSubquery),
        "MATCH (a:A) RETURN EXISTS { MATCH (a)-[:T]->(b) WHERE b.k > 1 }",
    ),
    c(
        "COUNT { pattern }",
        "manual: COUNT subquery",
        EX,
        F(P::CountSubquery),
        "MATCH (a:A) RETURN COUNT { (a)-[:T]->() }",
    ),
    c("map projection n{.k}", "<map projection> <field selector>", EX, F(P::MapProjection), "MATCH (a:A) RETURN a{.k}"),
    c("map projection n{.*}", "<all fields selector>", EX, F(P::MapProjectionAll), "MATCH (a:A) RETURN a{.*}"),
    c(
        "map projection n{k: e}, n{x}",
        "<literal map field> <variable selector>",
        EX,
        F(P::MapProjectionEntries),
        "MATCH (a:A) WITH a, 1 AS x RETURN a{.k, y: 2, x}",
    ),
    c(
        "list comprehension",
        "<list comprehension>",
        EX,
        F(P::ListComprehension),
        "RETURN [x IN [1, 2] WHERE x > 1 | x * 2]",
    ),
    c(
        "pattern comprehension",
        "<pattern comprehension>",
        EX,
        F(P::PatternComprehension),
        "MATCH (a:A) RETURN [(a)-[:T]->(b) | b.k]",
    ),
    c(
        "pattern comprehension with WHERE",
        "<pattern filter>",
        EX,
        T(P::PatternComprehension, " WHERE "),
        "MATCH (a:A) RETURN [(a)-[:T]->(b) WHERE b.k > 1 | b.k]",
    ),
    c("reduce", "<reduce expression>", EX, F(P::Reduce), "RETURN reduce(s = 0, x IN [1, 2] | s + x)"),
    c("all / any / none / single", "<quantifier expression>", EX, F(P::Quantifier), "RETURN all(x IN [1] WHERE x > 0)"),
    c(
        "DISTINCT in a function call",
        "<function invocation> <set quantifier>",
        EX,
        F(P::AggregateDistinct),
        "UNWIND [1, 1] AS x RETURN count(DISTINCT x)",
    ),
    c(
        "pattern as a predicate",
        "<pattern expression>",
        EX,
        F(P::PatternPredicate),
        "MATCH (a:A) WHERE (a)-[:T]->() RETURN count(*)",
    ),
    c(
        "shortestPath() as an expression",
        "<shortest path expression>",
        EX,
        F(P::ShortestPath),
        "MATCH (a:A {k: 1}), (b:B) RETURN length(shortestPath((a)-[:T*]->(b)))",
    ),
    c("list [a, b]", "<list value constructor>", EX, F(P::ListLiteral), "RETURN [1, 2]"),
    c("map {k: v}", "<map value constructor>", EX, F(P::MapLiteral), "RETURN {k: 1}"),
    // Literals.
    c("integer", "<unsigned decimal integer>", LI, F(P::Match), "RETURN 12"),
    c(
        "hexadecimal / octal integer",
        "<unsigned hexadecimal integer> <unsigned octal integer>",
        LI,
        F(P::IntegerBases),
        "RETURN 0x1F, 0o17",
    ),
    c(
        "integer at the type's edges",
        "<signed numeric literal>",
        LI,
        F(P::BoundaryValues),
        "RETURN 9223372036854775807, -9223372036854775808",
    ),
    c("float 1.5", "<unsigned decimal in common notation>", LI, F(P::Match), "RETURN 1.5"),
    c("float .5", "<unsigned decimal in common notation> (no integer part)", LI, F(P::FloatLeadingPoint), "RETURN .5"),
    c("float 1e3", "<unsigned decimal in scientific notation>", LI, F(P::FloatForms), "RETURN 1.5e3, 2E-2"),
    c(
        "INF / NaN",
        "<signed numeric literal> INF NAN",
        LI,
        M(
            "the generator writes no infinite or NaN float in any spelling (only arithmetic such as 0.0 / 0.0 makes one, and engines print it differently); Grafeo alone takes the GQL literals (probe column)",
        ),
        "RETURN INF, NAN",
    ),
    c("true / false", "<boolean literal>", LI, F(P::Match), "RETURN true, false"),
    c("null", "<null literal>", LI, F(P::Match), "RETURN null"),
    c("'string'", "<single quoted character sequence>", LI, F(P::Match), "RETURN 'a'"),
    c("\"string\"", "<double quoted character sequence>", LI, F(P::DoubleQuotedStrings), "RETURN \"a\""),
    c(
        "escapes \\' \\\\ \\n \\uXXXX",
        "<escaped character>",
        LI,
        Detect::Check(P::Match, has_escape),
        "RETURN 'a\\'b\\\\c', '\\u00e9'",
    ),
    c("empty string ''", "<unbroken single quoted character sequence>", LI, T(P::Match, "''"), "RETURN size('')"),
    c("empty list []", "<list value constructor> (no elements)", LI, F(P::DegenerateForms), "RETURN size([])"),
    c("empty map {}", "<fields specification> (no fields)", LI, F(P::EmptyMap), "RETURN size(keys({}))"),
    c(
        "`quoted` name",
        "<delimited identifier>",
        LI,
        M("generated names are plain; no engine here differs on quoting them"),
        "MATCH (`a b`:A) RETURN count(`a b`)",
    ),
    // Functions: the Cypher manual's list.
    c("avg", "manual: aggregating", FN, F(P::Avg), "UNWIND [1, 2] AS x RETURN avg(x)"),
    c("collect", "manual: aggregating", FN, F(P::Collect), "UNWIND [1, 2] AS x RETURN size(collect(x))"),
    c("count", "manual: aggregating", FN, F(P::Count), "UNWIND [1, 2] AS x RETURN count(x)"),
    c("max", "manual: aggregating", FN, F(P::Max), "UNWIND [1, 2] AS x RETURN max(x)"),
    c("min", "manual: aggregating", FN, F(P::Min), "UNWIND [1, 2] AS x RETURN min(x)"),
    c("sum", "manual: aggregating", FN, F(P::Sum), "UNWIND [1, 2] AS x RETURN sum(x)"),
    c("stDev / stDevP", "manual: aggregating", FN, F(P::StDev), "UNWIND [1, 2] AS x RETURN stDev(x), stDevP(x)"),
    c(
        "percentileCont / percentileDisc",
        "manual: aggregating",
        FN,
        F(P::Percentile),
        "UNWIND [1, 2] AS x RETURN percentileDisc(x, 0.5), percentileCont(x, 0.5)",
    ),
    c("keys", "manual: list", FN, F(P::FnKeys), "MATCH (a:A) RETURN keys(a)"),
    c("labels", "manual: list", FN, F(P::FnLabels), "MATCH (a:A) RETURN labels(a)"),
    c("nodes", "manual: list", FN, F(P::FnNodes), "MATCH p = (:A)-[:T]->() RETURN size(nodes(p))"),
    c(
        "relationships",
        "manual: list",
        FN,
        F(P::FnRelationships),
        "MATCH p = (:A)-[:T]->() RETURN size(relationships(p))",
    ),
    c("range", "manual: list", FN, F(P::FnRange), "RETURN range(1, 3)"),
    c("range with step", "manual: list", FN, F(P::FnRangeStep), "RETURN range(1, 9, 3)"),
    c("reverse (list)", "manual: list", FN, F(P::FnReverseList), "RETURN reverse([1, 2])"),
    c("tail", "manual: list", FN, F(P::FnTail), "RETURN tail([1, 2])"),
    c(
        "toIntegerList / toFloatList / toStringList / toBooleanList",
        "manual: list",
        FN,
        F(P::FnToList),
        "RETURN toIntegerList(['1', 'x']), toStringList([1])",
    ),
    c("abs", "manual: numeric", FN, F(P::FnAbs), "RETURN abs(-1)"),
    c("ceil", "manual: numeric", FN, F(P::FnCeil), "RETURN ceil(1.5)"),
    c("floor", "manual: numeric", FN, F(P::FnFloor), "RETURN floor(1.5)"),
    c("isNaN", "manual: numeric", FN, F(P::FnIsNaN), "RETURN isNaN(1.0)"),
    c("rand", "manual: numeric", FN, F(P::FnRand), "RETURN rand() < 1.0"),
    c("round", "manual: numeric", FN, F(P::FnRound), "RETURN round(1.4)"),
    c("sign", "manual: numeric", FN, F(P::FnSign), "RETURN sign(-2)"),
    c("e / pi", "manual: logarithmic, trigonometric", FN, F(P::FnConstants), "RETURN e() > 2.7, pi() > 3.1"),
    c("exp", "manual: logarithmic", FN, F(P::FnExp), "RETURN exp(0.0)"),
    c("log", "manual: logarithmic", FN, F(P::FnLog), "RETURN log(1.0)"),
    c("log10", "manual: logarithmic", FN, F(P::FnLog10), "RETURN log10(100.0)"),
    c("sqrt", "manual: logarithmic", FN, F(P::FnSqrt), "RETURN sqrt(4.0)"),
    c("sin / cos", "manual: trigonometric", FN, F(P::FnSin), "RETURN sin(0.0), cos(0.0)"),
    c("tan / cot", "manual: trigonometric", FN, F(P::FnTan), "RETURN tan(0.5), cot(0.5)"),
    c(
        "asin / acos / atan / atan2",
        "manual: trigonometric",
        FN,
        F(P::FnArc),
        "RETURN asin(0.5), acos(0.5), atan(0.5), atan2(0.5, 0.5)",
    ),
    c(
        "degrees / radians / haversin",
        "manual: trigonometric",
        FN,
        F(P::FnAngles),
        "RETURN degrees(1.0), radians(90.0), haversin(0.5)",
    ),
    c(
        "exists (function)",
        "manual: predicate",
        FN,
        M("exists(n.k) is Cypher 4 syntax, replaced by IS NOT NULL (generated)"),
        "MATCH (a:A) RETURN exists(a.k)",
    ),
    c("isEmpty", "manual: predicate", FN, F(P::FnIsEmpty), "RETURN isEmpty([]), isEmpty('a')"),
    c(
        "char_length / character_length",
        "manual: scalar",
        FN,
        F(P::FnCharLength),
        "RETURN char_length('ab'), character_length('ab')",
    ),
    c("coalesce", "manual: scalar", FN, F(P::FnCoalesce), "RETURN coalesce(null, 1)"),
    c(
        "elementId",
        "manual: scalar",
        FN,
        M("an engine's own string; only compared for equality, which id() already covers"),
        "MATCH (a:A) RETURN elementId(a) IS NOT NULL",
    ),
    c(
        "endNode / startNode",
        "manual: scalar",
        FN,
        F(P::FnEndNode),
        "MATCH ()-[r:T]->() RETURN endNode(r) = startNode(r)",
    ),
    c("head / last", "manual: scalar", FN, F(P::FnHead), "RETURN head([1, 2]), last([1, 2])"),
    c("id", "manual: scalar", FN, F(P::FnId), "MATCH (a:A) RETURN id(a) >= 0"),
    c("length", "manual: scalar", FN, F(P::FnLength), "MATCH p = (:A)-[:T]->() RETURN length(p)"),
    c("nullIf", "manual: scalar", FN, F(P::FnNullIf), "RETURN nullIf(1, 1), nullIf(1, 2)"),
    c("properties", "manual: scalar", FN, F(P::FnProperties), "MATCH (a:A) RETURN properties(a)"),
    c(
        "randomUUID",
        "manual: scalar",
        FN,
        M("random by design; only its type could be checked"),
        "RETURN size(randomUUID())",
    ),
    c("size", "manual: scalar", FN, F(P::FnSize), "RETURN size([1, 2]), size('ab')"),
    c("timestamp", "manual: scalar", FN, F(P::FnTimestamp), "RETURN timestamp() > 0"),
    c(
        "toBoolean / toFloat / toInteger",
        "manual: scalar",
        FN,
        F(P::FnToInteger),
        "RETURN toBoolean('true'), toFloat('1.5'), toInteger('2')",
    ),
    c(
        "toBooleanOrNull / toFloatOrNull / toIntegerOrNull",
        "manual: scalar",
        FN,
        F(P::FnOrNull),
        "RETURN toIntegerOrNull('x'), toFloatOrNull('1.5'), toBooleanOrNull(1.5)",
    ),
    c("type", "manual: scalar", FN, F(P::FnType), "MATCH ()-[r:T]->() RETURN type(r)"),
    c(
        "valueType",
        "manual: scalar",
        FN,
        M(
            "type names are each engine's own (Neo4j 5's INTEGER NOT NULL); Grafeo and ArcadeDB have it (probe column), their names would differ",
        ),
        "RETURN valueType(1)",
    ),
    c("left / right", "manual: string", FN, F(P::FnLeft), "RETURN left('abc', 2), right('abc', 2)"),
    c("lower / upper", "manual: string", FN, F(P::FnLowerUpper), "RETURN lower('Ab'), upper('Ab')"),
    c("ltrim / rtrim / trim", "manual: string", FN, F(P::FnTrim), "RETURN ltrim(' a'), rtrim('a '), trim(' a ')"),
    c("btrim", "manual: string", FN, F(P::FnBTrim), "RETURN btrim('xax', 'x')"),
    c("normalize", "manual: string", FN, F(P::FnNormalize), "RETURN normalize('a')"),
    c("replace", "manual: string", FN, F(P::FnReplace), "RETURN replace('aba', 'a', 'c')"),
    c("reverse (string)", "manual: string", FN, F(P::FnReverse), "RETURN reverse('ab')"),
    c("split", "manual: string", FN, F(P::FnSplit), "RETURN split('a,b', ',')"),
    c("substring", "manual: string", FN, F(P::FnSubstring), "RETURN substring('abc', 1, 1)"),
    c("toLower / toUpper", "manual: string", FN, F(P::FnToLower), "RETURN toLower('A'), toUpper('a')"),
    c("toString", "manual: string", FN, F(P::FnToString), "RETURN toString(1)"),
    c("toStringOrNull", "manual: string", FN, F(P::FnOrNull), "RETURN toStringOrNull(1)"),
    c(
        "temporal functions (date, datetime, duration, ...)",
        "manual: temporal",
        FN,
        M(TEMPORAL),
        "RETURN date('2020-01-01')",
    ),
    c("spatial functions (point, point.distance)", "manual: spatial", FN, M(SPATIAL), "RETURN point({x: 1, y: 2})"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructs_are_named_once_and_each_has_an_example_and_a_rule() {
        let mut names: Vec<&str> = CONSTRUCTS.iter().map(|c| c.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a construct is listed twice");
        for c in CONSTRUCTS {
            assert!(!c.example.is_empty() && !c.rule.is_empty(), "{}", c.name);
            if let Detect::Missing(why) = c.detect {
                assert!(why.len() > 20, "{}: a missing construct needs its reason", c.name);
            }
        }
    }

    #[test]
    fn several_set_items_are_told_from_one_item_with_a_map() {
        assert!(several_set_items("MATCH (n) SET n.k = 1, n.j = 2 RETURN n"));
        assert!(!several_set_items("MATCH (n) SET n += {k: 1, j: 2} RETURN n"));
        assert!(!several_set_items("MATCH (n) SET n.k = f(1, 2) RETURN n, 1"));
    }
}
