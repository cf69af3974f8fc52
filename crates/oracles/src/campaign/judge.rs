//! One generated query's test cases: each oracle that can builds its own,
//! the queries it adds are run, and the verdicts are asked for in order
//! (the oracles that judge queries one by one first); a finding goes on to
//! be confirmed, named and written ([`super::findings`]).

use graphlancer_cypher::Generated;
use graphlancer_engines::Outcome;

use super::summary::{Summary, count_all};
use super::{Campaign, CampaignError, QueryCx, Ran, derive_rng, stream, weighted_index};
use crate::case::Role;
use crate::oracle::{BuildCx, CaseQuery, JudgeCx, TestCase, Verdict};

impl Campaign {
    /// The oracles' test cases for `query` (run as `source`, with
    /// `outcomes`), their verdicts, and the first finding handled.
    pub(super) fn oracles_on(
        &mut self,
        s: &mut Summary,
        cx: &QueryCx<'_, '_>,
        query: &Generated,
        source: &CaseQuery,
        outcomes: Vec<Outcome>,
    ) -> Result<(), CampaignError> {
        // The oracles' test cases: those that only judge the source,
        // and one (by weight) that runs queries of its own; when the
        // one drawn cannot use this query, the next that can does.
        let mut orng = derive_rng(self.config.seed, &[stream::ORACLE, cx.at.graph_index, cx.at.case_index]);
        let no_filter = Vec::new();
        // The generated query itself, which a group may hold too: its answers are not asked for twice.
        let is_source = |q: &CaseQuery| q.role == Role::Source && q.text == source.text;
        let mut order: Vec<usize> = cx
            .oracles
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.per_query() && !o.adds_queries())
            .map(|(i, _)| i)
            .collect();
        if let Some(first) = weighted_index(cx.turns, &mut orng) {
            let at = cx.turns.iter().position(|(i, _)| *i == first).unwrap_or(0);
            order.extend(cx.turns[at..].iter().chain(&cx.turns[..at]).filter(|(_, w)| *w > 0).map(|(i, _)| *i));
        }
        let mut groups: Vec<(usize, Ran)> = Vec::new();
        let mut built_own = false;
        for i in order {
            let o = &cx.oracles[i];
            if o.adds_queries() && built_own {
                continue;
            }
            let only = self.config.relations.get(&o.kind()).unwrap_or(&no_filter);
            let build = BuildCx {
                generator: cx.generator,
                graph: cx.at.graph,
                profile: cx.profile,
                engines: self.names.len(),
                only,
                traversals: cx.traversals,
            };
            match o.build(query, &build, &mut orng) {
                Err(reason) => {
                    let r = s.relations.entry(o.kind().name().to_owned()).or_default();
                    *r.skipped.entry(reason.to_owned()).or_default() += 1;
                }
                Ok(case) => {
                    built_own |= o.adds_queries();
                    let mut all = Vec::with_capacity(case.queries.len());
                    for q in &case.queries {
                        if is_source(q) {
                            all.push(outcomes.clone());
                            continue;
                        }
                        if self.cut || self.time_left().is_some_and(|l| l.is_zero()) {
                            // The case cannot be judged now: the rest is not run.
                            self.cut = true;
                            break;
                        }
                        let (o, waited, wall) = self.execute_all(q)?;
                        self.engine_time += wall;
                        s.followup_queries += 1;
                        count_all(s, &o, &waited, &q.text);
                        all.push(o);
                    }
                    groups.push((i, Ran { case, outcomes: all }));
                }
            }
        }
        // Every query run, for the oracles that judge queries one by one.
        let mut each = Ran { case: TestCase::single("source", source.clone()), outcomes: vec![outcomes] };
        for (_, g) in &groups {
            for (q, o) in g.case.queries.iter().zip(&g.outcomes) {
                // Only the generated query itself is already there; a
                // group's own first query (a cross-language traversal)
                // is judged too.
                if !is_source(q) {
                    each.case.queries.push(q.clone());
                    each.outcomes.push(o.clone());
                }
            }
        }
        if self.take_cut(s) {
            return Ok(());
        }
        let names = self.names.clone();
        let judge = JudgeCx { names: &names, schema: &cx.at.graph.schema };
        let mut verdict = None;
        for (i, o) in cx.oracles.iter().enumerate() {
            if !o.per_query() {
                continue;
            }
            if let Verdict::Finding(f) = o.judge(&judge, &each.case, &each.outcomes) {
                let q = f.query.unwrap_or(0);
                let case = TestCase::single(o.kind().name(), each.case.queries[q].clone());
                verdict = Some((i, Ran { case, outcomes: vec![each.outcomes[q].clone()] }, f));
                break;
            }
        }
        if verdict.is_none() {
            for (i, ran) in groups {
                let v = cx.oracles[i].judge(&judge, &ran.case, &ran.outcomes);
                let r = s.relations.entry(ran.case.relation.clone()).or_default();
                match v {
                    Verdict::Pass => r.run += 1,
                    Verdict::Skip(reason) => *r.skipped.entry(reason.to_owned()).or_default() += 1,
                    Verdict::FeatureDifference(d) => {
                        r.run += 1;
                        let e = s.feature_differences.entry(format!("{}: {}", d.engine, d.construct));
                        let e = e.or_default();
                        e.count += 1;
                        if e.query.is_empty() {
                            e.query = ran.case.queries.first().map(|q| q.text.clone()).unwrap_or_default();
                        }
                    }
                    Verdict::Finding(f) => {
                        r.run += 1;
                        verdict = Some((i, ran, f));
                        break;
                    }
                }
            }
        }
        if let Some((i, ran, finding)) = verdict {
            self.handle(s, cx.oracles[i], cx.at, ran, finding)?;
        }
        Ok(())
    }
}
