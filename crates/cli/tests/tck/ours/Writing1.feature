# A scenario of our own with side effects, in the TCK's shape.
Feature: Writing1 - side effects

  Scenario: [1] CREATE counts its nodes, labels and properties
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {name: 'Ann'})
      """
    When executing query:
      """
      MATCH (a:Person)
      CREATE (a)-[:KNOWS]->(:Person:Robot {name: 'R2'})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes         | 1 |
      | +relationships | 1 |
      | +labels        | 1 |
      | +properties    | 1 |
