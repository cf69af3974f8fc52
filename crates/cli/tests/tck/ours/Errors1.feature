# Errors Neo4j 5 raises before a query runs, as the TCK's Boolean4 [4] and
# Map1 [6] expect them: the class and the phase are checked.
Feature: Errors1 - errors of known operand types

  Scenario: [1] NOT of an integer literal is refused at compile time
    Given any graph
    When executing query:
      """
      RETURN NOT 1 AS v
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentType

  Scenario: [2] A property read of an integer is a type error at compile time
    Given any graph
    When executing query:
      """
      WITH 123 AS x
      RETURN x.num AS v
      """
    Then a TypeError should be raised at compile time: InvalidArgumentType
