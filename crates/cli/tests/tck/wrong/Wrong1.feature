# A scenario whose expectation is wrong on purpose: the runner must fail it.
Feature: Wrong1 - a wrong expectation

  Scenario: [1] One plus one is not three
    Given any graph
    When executing query:
      """
      RETURN 1 + 1 AS v
      """
    Then the result should be, in any order:
      | v |
      | 3 |
