//! How much of a campaign's time triage may take: reductions are held to
//! a share of a time budget, and naming a finding to a few seconds.

use std::time::Duration;

/// The share of a time budget reductions may take at most: a campaign is
/// for finding bugs, and on a configuration full of one behaviour the
/// reducer took 91% of the time.
pub(super) const REDUCTION_SHARE: f64 = 0.25;

/// The share of a time budget naming findings may take at most. Old Kuzu
/// releases fail one query in four; naming each of those took a third of
/// the time, and nine in ten were counted under a report already there.
pub(super) const NAMING_SHARE: f64 = 0.15;

/// A naming gets at least this long, or the finding goes unnamed.
pub(super) const MIN_NAMING: Duration = Duration::from_millis(500);

/// What is left of a time budget's share for naming after `spent` seconds of it.
pub(super) fn naming_share_left(budget: Duration, spent: f64) -> Duration {
    Duration::from_secs_f64((budget.as_secs_f64() * NAMING_SHARE - spent).max(0.0))
}

/// What naming one finding before reduction may take: a few dozen probes.
pub(super) const NAMING_TIME: Duration = Duration::from_secs(10);

/// A reduction gets at least this long, or none is started.
pub(super) const MIN_REDUCTION: Duration = Duration::from_secs(1);

/// What is left of a time budget's share for reductions after `spent` seconds of them.
pub(super) fn reduction_share_left(budget: Duration, spent: f64) -> Duration {
    Duration::from_secs_f64((budget.as_secs_f64() * REDUCTION_SHARE - spent).max(0.0))
}

/// What a time budget keeps back from new queries for reducing the last of
/// its findings: without it a finding of the last seconds is written as it
/// was generated. Once a finding has been reduced: the longest reduction so
/// far, at least [`MIN_RESERVE`], at most a tenth of the budget and one
/// finding's limit. Nothing before (a campaign that finds nothing runs to
/// its end).
pub(super) fn reduction_reserve(budget: Duration, per_finding: Duration, so_far: &[f64]) -> Duration {
    if so_far.is_empty() {
        return Duration::ZERO;
    }
    let longest = so_far.iter().copied().fold(0.0, f64::max);
    Duration::from_secs_f64(longest).max(MIN_RESERVE).min(budget / 10).min(per_finding)
}

/// The least [`reduction_reserve`] keeps once a finding has been reduced.
pub(super) const MIN_RESERVE: Duration = Duration::from_secs(10);

#[cfg(test)]
mod reserve_tests {
    use super::*;

    #[test]
    fn reductions_take_at_most_a_quarter_of_a_time_budget() {
        let budget = Duration::from_secs(600);
        assert_eq!(reduction_share_left(budget, 0.0), Duration::from_secs(150));
        assert_eq!(reduction_share_left(budget, 140.0), Duration::from_secs(10));
        assert_eq!(reduction_share_left(budget, 151.0), Duration::ZERO);
        assert_eq!(naming_share_left(budget, 30.0), Duration::from_secs(60));
        assert_eq!(naming_share_left(budget, 91.0), Duration::ZERO);
    }

    #[test]
    fn the_reserve_is_the_longest_reduction_within_its_bounds() {
        let (ten_min, minute) = (Duration::from_secs(600), Duration::from_secs(60));
        assert_eq!(reduction_reserve(ten_min, minute, &[]), Duration::ZERO);
        assert_eq!(reduction_reserve(ten_min, minute, &[1.0, 2.0]), MIN_RESERVE);
        assert_eq!(reduction_reserve(ten_min, minute, &[1.0, 25.0, 3.0]), Duration::from_secs(25));
        assert_eq!(reduction_reserve(ten_min, minute, &[300.0]), minute);
        assert_eq!(reduction_reserve(Duration::from_secs(30), minute, &[20.0]), Duration::from_secs(3));
    }
}
