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

  Scenario: [2] A division by zero is not a type error
    Given any graph
    When executing query:
      """
      RETURN 1 / 0 AS v
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType
