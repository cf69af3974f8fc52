//! What "valid" means: Neo4j 5. A query Neo4j 5 refuses (at compile time,
//! or at run time for a reason its literals decide) is no engine's bug when
//! another engine refuses it too, so the error oracle files no such
//! refusal and the reference raises the error. The rules come from the
//! openCypher TCK's expected-error scenarios and Neo4j 5's own checks;
//! each names its source. Only rules the generator can break are here: the
//! generator avoids the rest by construction (scope, types, aliases).

use crate::ast::{Expr, Query};
use graphlancer_model::Value;

/// Why Neo4j 5 refuses a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A non-deterministic function inside an aggregate's argument
    /// (`count(rand())`): TCK `Return6` scenario 15, SyntaxError
    /// NonConstantExpression; Neo4j 5 checks every aggregate's argument,
    /// percentiles' too.
    RandomInAggregate,
    /// An aggregate inside an aggregate (`count(count(*))`): TCK `Return6`
    /// scenario 14, SyntaxError NestedAggregation.
    NestedAggregate,
    /// `substring` or `left` given a start or length outside 0 to 2^31 - 1
    /// by a literal: Neo4j 5 converts them to 32-bit integers exactly and
    /// raises an ArgumentError otherwise (a negative one is an error too).
    /// `right` reads its length as 64 bits and refuses a negative one only.
    StringPositionOutOfRange,
    /// An operand whose type is known from literals and does not fit its
    /// operator (`NOT 1`, `[] AND true`, `1 IN 'a'`, `'a' % 2`): a
    /// SyntaxError InvalidArgumentType.
    WrongOperandType,
    /// A property read of a literal that is no map (`WITH 1 AS x RETURN
    /// x.k`): a TypeError InvalidArgumentType at compile time.
    PropertyOfNonMap,
    /// A variable bound as a node used as a relationship, a path or a
    /// value bound where a pattern binds an entity, and so on: a
    /// SyntaxError VariableTypeConflict.
    VariableTypeConflict,
    /// CREATE or MERGE of a node with labels or properties, or of a
    /// relationship or path, whose variable is already bound: a SyntaxError
    /// VariableAlreadyBound.
    VariableAlreadyBound,
    /// A variable read where no clause bound it: a SyntaxError
    /// UndefinedVariable.
    UndefinedVariable,
    /// An aggregate in a WHERE, or in the ORDER BY of a projection that
    /// aggregates nothing: a SyntaxError InvalidAggregation.
    InvalidAggregation,
    /// Two columns of one WITH or RETURN under one name (`RETURN 1 AS a,
    /// 2 AS a`): TCK `Return4` scenario 10, `With4` scenario 4, SyntaxError
    /// ColumnNameConflict.
    ColumnNameConflict,
    /// A pattern used as a value (`RETURN (n)-->()`, `size((a)-->())`):
    /// TCK `Pattern1` scenarios 22–24, `List6` scenario 6, SyntaxError
    /// UnexpectedSyntax.
    PatternAsValue,
}

impl Refusal {
    /// Whether Neo4j 5 refuses before running (a syntax or semantic error),
    /// not while running.
    pub fn at_compile_time(self) -> bool {
        !matches!(self, Refusal::StringPositionOutOfRange)
    }

    /// The refusal in words.
    pub fn describe(self) -> &'static str {
        match self {
            Refusal::RandomInAggregate => "a non-deterministic function inside an aggregate (NonConstantExpression)",
            Refusal::NestedAggregate => "an aggregate inside an aggregate (NestedAggregation)",
            Refusal::StringPositionOutOfRange => {
                "a substring or left position outside 0 to 2^31 - 1 (ArgumentError), or a negative right length"
            }
            Refusal::WrongOperandType => "an operand of a known type its operator cannot take (InvalidArgumentType)",
            Refusal::PropertyOfNonMap => "a property read of a value that is no map (InvalidArgumentType)",
            Refusal::VariableTypeConflict => {
                "a variable bound as one kind of value and used as another (VariableTypeConflict)"
            }
            Refusal::VariableAlreadyBound => {
                "a variable already bound, named by a clause that creates it (VariableAlreadyBound)"
            }
            Refusal::UndefinedVariable => "a variable no clause bound (UndefinedVariable)",
            Refusal::PatternAsValue => "a pattern used as a value, not as a predicate (UnexpectedSyntax)",
            Refusal::ColumnNameConflict => "two columns of one projection under one name (ColumnNameConflict)",
            Refusal::InvalidAggregation => {
                "an aggregate in a WHERE, or sorting a projection that aggregates nothing (InvalidAggregation)"
            }
        }
    }
}

mod aggregation;
mod patterns;
mod walk;

pub(crate) use walk::each_expr;
mod scope;
mod types;
mod variables;

/// The first reason Neo4j 5 refuses `query`, if it does.
pub fn neo4j_refuses(query: &Query) -> Option<Refusal> {
    let mut found = None;
    for part in &query.parts {
        each_expr(&part.clauses, &mut |e| {
            if found.is_none() {
                found = refusal(e);
            }
        });
    }
    let bindings = || {
        variables::conflict(query).map(|c| match c {
            variables::Conflict::Kind => Refusal::VariableTypeConflict,
            variables::Conflict::AlreadyBound => Refusal::VariableAlreadyBound,
        })
    };
    let unbound = || scope::undefined(query).then_some(Refusal::UndefinedVariable);
    let misplaced = || aggregation::misplaced(query).then_some(Refusal::InvalidAggregation);
    let columns = || aggregation::same_column_names(query).then_some(Refusal::ColumnNameConflict);
    let pattern = || patterns::as_value(query).then_some(Refusal::PatternAsValue);
    found.or_else(misplaced).or_else(columns).or_else(pattern).or_else(unbound).or_else(bindings).or_else(|| {
        types::wrong_operand(query).map(|w| match w {
            types::Wrong::Operand => Refusal::WrongOperandType,
            types::Wrong::Property => Refusal::PropertyOfNonMap,
        })
    })
}

fn refusal(e: &Expr) -> Option<Refusal> {
    match e {
        Expr::Aggregate { arg: Some(arg), .. } => {
            let (mut random, mut nested) = (false, false);
            arg.walk(&mut |x| match x {
                Expr::Function(name, _) if name.eq_ignore_ascii_case("rand") => random = true,
                Expr::Aggregate { .. } => nested = true,
                _ => {}
            });
            if nested { Some(Refusal::NestedAggregate) } else { random.then_some(Refusal::RandomInAggregate) }
        }
        Expr::Function(name, args) => {
            let name = name.to_ascii_lowercase();
            let literal = |i: usize| match args.get(i) {
                Some(Expr::Literal(Value::Int(n))) => Some(*n),
                Some(Expr::Negate(inner)) => match &**inner {
                    Expr::Literal(Value::Int(n)) => n.checked_neg(),
                    _ => None,
                },
                _ => None,
            };
            let out_of_int = |n: i64| !(0..=i64::from(i32::MAX)).contains(&n);
            let positions: &[usize] = match name.as_str() {
                "substring" => &[1, 2],
                "left" => &[1],
                _ => &[],
            };
            let bad = positions.iter().any(|&i| literal(i).is_some_and(out_of_int))
                || (name == "right" && literal(1).is_some_and(|n| n < 0));
            bad.then_some(Refusal::StringPositionOutOfRange)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn refused(text: &str) -> Option<Refusal> {
        neo4j_refuses(&parse(text).expect("parses"))
    }

    #[test]
    fn the_refusals_arcadedb_and_neo4j_share_are_refused() {
        assert_eq!(refused("RETURN max(rand()) AS a"), Some(Refusal::RandomInAggregate));
        assert_eq!(refused("MATCH (n) RETURN percentileCont(rand(), 0.9) AS a"), Some(Refusal::RandomInAggregate));
        assert_eq!(refused("RETURN count(count(*)) AS a"), Some(Refusal::NestedAggregate));
        assert_eq!(
            refused("RETURN substring('', 0, 9223372036854775807) AS a"),
            Some(Refusal::StringPositionOutOfRange)
        );
        assert_eq!(refused("RETURN left('ab', -1) AS a"), Some(Refusal::StringPositionOutOfRange));
        assert_eq!(refused("RETURN right('ab', -1) AS a"), Some(Refusal::StringPositionOutOfRange));
        // In a nested body too.
        assert_eq!(
            refused("MATCH (n) CALL { WITH n RETURN collect(rand()) AS c } RETURN c"),
            Some(Refusal::RandomInAggregate)
        );
    }

    /// TCK Boolean1-4, List5 [42], Quantifier1-4 and Map1 [6]: operands of
    /// a type known before running that their operator cannot take.
    #[test]
    fn operands_of_a_known_type_their_operator_cannot_take_are_refused() {
        for text in [
            "RETURN NOT 1 AS a",
            "RETURN [] AND true AS a",
            "RETURN null OR 'foo' AS a",
            "RETURN 1 IN 'a' AS a",
            "RETURN 'a' % 2 AS a",
            "RETURN none(x IN ['Clara'] WHERE x % 2 = 0) AS a",
            "UNWIND [true, null] AS b RETURN b * 2 AS a",
        ] {
            assert_eq!(refused(text), Some(Refusal::WrongOperandType), "{text}");
        }
        assert_eq!(refused("WITH 123 AS x RETURN x.num AS a"), Some(Refusal::PropertyOfNonMap));
        assert_eq!(refused("WITH [1, true] AS x RETURN x.num AS a"), Some(Refusal::PropertyOfNonMap));
        for text in [
            "RETURN NOT null AS a",
            "MATCH (n) RETURN n.k % 2 AS a",
            "WITH {k: 1} AS m RETURN m.k AS a",
            "UNWIND [1, 'a'] AS x RETURN x % 2 AS a",
            "RETURN [x IN ['a'] | x] AS a, all(y IN [1, 2] WHERE y % 2 = 0) AS b",
        ] {
            assert_eq!(refused(text), None, "{text}");
        }
    }

    /// TCK Match1-3 (VariableTypeConflict), Create1-2 and Merge1
    /// (VariableAlreadyBound).
    #[test]
    fn variables_bound_against_what_they_are_are_refused() {
        for text in [
            "MATCH (r) MATCH ()-[r]-() RETURN r",
            "MATCH (r)-[]-(t), (s)-[r]-(t) RETURN r",
            "MATCH r = (a)-->(b) MATCH ()-[r]-() RETURN r",
            "WITH true AS r MATCH ()-[r]-() RETURN r",
            "WITH 1 AS x MATCH (x) RETURN x.k AS a",
        ] {
            assert_eq!(refused(text), Some(Refusal::VariableTypeConflict), "{text}");
        }
        for text in [
            "MATCH (a) CREATE (a)",
            "MATCH (a) CREATE (a {name: 'foo'}) RETURN a",
            "CREATE (n:Foo)-[:T1]->(), (n:Bar)-[:T2]->()",
            "MATCH ()-[r]->() CREATE ()-[r:T]->()",
            "MATCH (a) MERGE (a:L)",
            "MATCH p = (p)-[]-() RETURN p",
            "MATCH p = ()-[p]->() RETURN p",
        ] {
            assert_eq!(refused(text), Some(Refusal::VariableAlreadyBound), "{text}");
        }
        for text in [
            "MATCH (a) CREATE (a)-[:T]->(b)",
            "MATCH ()-[r1]->()-[r2]->() WITH [r1, r2] AS rs MATCH (f)-[rs*]->(s) RETURN f",
            "MATCH (a)-[r]->(b) MATCH (a)-[r]->(c) RETURN c",
            "MATCH (n) WITH n AS m MATCH (m)-->() RETURN m",
            "CREATE (a:L)-[:T]->(a) RETURN a",
            "MATCH (a) MERGE (a)-[:T]->(b) RETURN b",
        ] {
            assert_eq!(refused(text), None, "{text}");
        }
    }

    /// TCK Return1, Set1, Create2, Delete5, Merge3, Pattern1.
    #[test]
    fn a_variable_no_clause_bound_is_refused() {
        for text in [
            "MATCH () RETURN foo",
            "MATCH (a) SET a.name = missing RETURN a",
            "MATCH (a) CREATE (a)-[:KNOWS]->(b {name: missing}) RETURN b",
            "MATCH (a) DELETE x",
            "MERGE (n) ON MATCH SET x.num = 1",
            "MATCH (n) WHERE (n)-[r]->(a) RETURN n",
            "MATCH (n) WITH n.k AS k RETURN n",
        ] {
            assert_eq!(refused(text), Some(Refusal::UndefinedVariable), "{text}");
        }
        for text in [
            "MATCH (n) WITH n.k AS k ORDER BY n.j RETURN k",
            "MATCH (n) WHERE EXISTS { MATCH (n)-[r]->(a) WHERE a.k = 1 } RETURN n",
            "MATCH (n) RETURN [(n)-->(m) | m.k] AS ks, [x IN [1] | x + 1] AS xs, reduce(s = 0, y IN [1] | s + y) AS r",
            "MATCH (n) CALL { WITH n RETURN n.k AS k } RETURN k",
            "MATCH (n) SET n.k = 1 WITH n REMOVE n.k RETURN n",
            "MATCH (n) WITH * RETURN n",
        ] {
            assert_eq!(refused(text), None, "{text}");
        }
    }

    /// TCK MatchWhere1 [15], ReturnOrderBy2 [14], WithOrderBy2 [25].
    #[test]
    fn an_aggregate_in_a_where_or_sorting_a_plain_projection_is_refused() {
        for text in [
            "MATCH (a) WHERE count(a) > 10 RETURN a",
            "MATCH (n) RETURN n.num1 ORDER BY max(n.num2)",
            "MATCH (n) WITH n.num1 AS foo ORDER BY n.name, max(n.num2) RETURN foo AS foo",
            "MATCH (n) WITH n, count(*) AS c WHERE count(*) > 1 RETURN n",
            "MATCH (n) CALL { WITH n MATCH (m) WHERE max(m.k) > 1 RETURN m } RETURN n",
        ] {
            assert_eq!(refused(text), Some(Refusal::InvalidAggregation), "{text}");
        }
        for text in ["RETURN 1 AS a, 2 AS a", "WITH 1 AS a, 2 AS a RETURN a", "MATCH (n) RETURN n, n"] {
            assert_eq!(refused(text), Some(Refusal::ColumnNameConflict), "{text}");
        }
        assert_eq!(refused("MATCH (n) WITH *, n.k AS k RETURN 1 AS a UNION RETURN 2 AS a"), None);
    }

    /// TCK Pattern1 [22]-[24], List6 [6].
    #[test]
    fn a_pattern_used_as_a_value_is_refused() {
        for text in [
            "MATCH (n) RETURN (n)-[]->()",
            "MATCH (n) WITH (n)-[]->() AS x RETURN x",
            "MATCH (n) SET n.prop = head(nodes(head((n)-[:REL]->()))).foo",
            "MATCH (a), (b), (c) RETURN size((a)-[:REL]->(b))",
            // FalkorDB refused this one and the reference answered it.
            "MATCH (n0) WHERE ((n0)-[:T2]->(:L1)) = true RETURN 0",
            "MATCH (n) WHERE ((n)-->()) IS NULL RETURN n",
        ] {
            assert_eq!(refused(text), Some(Refusal::PatternAsValue), "{text}");
        }
        for text in [
            "MATCH (n) WHERE (n)-->() RETURN n",
            "MATCH (n) RETURN NOT (n)-->() AS f",
            "MATCH (n) WHERE ((n)-->() AND true) = true RETURN n",
            "MATCH (n) RETURN CASE WHEN (n)-->() THEN 1 ELSE 0 END AS c",
            "MATCH (n) RETURN size([(n)-->(m) | m]) AS s",
        ] {
            assert_eq!(refused(text), None, "{text}");
        }
        for text in [
            "MATCH (n) RETURN n.k AS k, count(*) AS c ORDER BY count(*)",
            "MATCH (n) WITH n.k AS k, max(n.j) AS m ORDER BY m WHERE m > 1 RETURN k",
            "MATCH (n) WHERE size([x IN [1, 2] | x]) > 1 RETURN count(*) AS c",
        ] {
            assert_eq!(refused(text), None, "{text}");
        }
    }

    #[test]
    fn what_neo4j_accepts_is_not_refused() {
        for text in [
            "RETURN rand() < 1.0 AS a",
            "MATCH (n) RETURN n, rand() AS r",
            "RETURN substring('abc', 1, 2147483647) AS a",
            "RETURN right('abc', 9223372036854775807) AS a",
            "MATCH (n) WITH n.k AS k, count(*) AS c RETURN k, c",
        ] {
            assert_eq!(refused(text), None, "{text}");
        }
    }
}
