# Scenarios of graphlancer's own, written in the openCypher TCK's shape, so
# the test suite checks the TCK runner without the TCK's files.
Feature: Reading1 - reads over a small graph

  Background:
    Given an empty graph
    And having executed:
      """
      CREATE (a:Person {name: 'Ann', age: 31}),
             (b:Person {name: 'Bob', age: 27}),
             (c:City {name: 'Oslo'}),
             (a)-[:KNOWS {since: 2019}]->(b),
             (a)-[:LIVES_IN]->(c),
             (b)-[:LIVES_IN]->(c)
      """

  Scenario: [1] Rows in any order
    When executing query:
      """
      MATCH (p:Person)-[:LIVES_IN]->(c:City)
      RETURN p.name AS name, c.name AS city
      """
    Then the result should be, in any order:
      | name  | city   |
      | 'Bob' | 'Oslo' |
      | 'Ann' | 'Oslo' |
    And no side effects

  Scenario: [2] Rows in order, with an aggregate
    When executing query:
      """
      MATCH (p:Person)
      RETURN p.name AS name, p.age + 1 AS next
      ORDER BY next DESC
      """
    Then the result should be, in order:
      | name  | next |
      | 'Ann' | 32   |
      | 'Bob' | 28   |
    And no side effects

  Scenario: [3] Entities and lists come back as values
    When executing query:
      """
      MATCH (a {name: 'Ann'})-[r:KNOWS]->(b)
      RETURN b, r, [a.name, b.name] AS names
      """
    Then the result should be, in any order:
      | b                                | r                     | names          |
      | (:Person {name: 'Bob', age: 27}) | [:KNOWS {since: 2019}] | ['Ann', 'Bob'] |
    And no side effects

  Scenario: [4] Nothing matches
    When executing query:
      """
      MATCH (p:Person {name: 'Eve'})
      RETURN p
      """
    Then the result should be empty
    And no side effects

  Scenario Outline: [5] Arithmetic on literals
    Given any graph
    When executing query:
      """
      RETURN <expr> AS v
      """
    Then the result should be, in any order:
      | v       |
      | <value> |
    And no side effects

    Examples:
      | expr      | value |
      | 7 / 2     | 3     |
      | 7.0 / 2   | 3.5   |
      | 2 ^ 3     | 8.0   |

  Scenario: [6] An integer overflow fails at run time
    When executing query:
      """
      RETURN 9223372036854775807 + 1 AS v
      """
    Then an ArithmeticError should be raised at runtime: IntegerOverflow

  Scenario: [7] A parameter is outside what the runner provides
    And parameters are:
      | p | 1 |
    When executing query:
      """
      RETURN $p AS v
      """
    Then the result should be, in any order:
      | v |
      | 1 |
