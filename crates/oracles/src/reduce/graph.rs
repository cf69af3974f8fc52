//! Reducing the graph a finding shows on: nodes, relationships, properties
//! and labels, by delta debugging.

use std::collections::BTreeSet;

use graphlancer_engines::EngineError;
use graphlancer_model::Graph;

use super::{Reducer, Run, State};

impl Reducer<'_> {
    /// Delta debugging over the graph: nodes (with their relationships),
    /// relationships, properties, then extra labels.
    pub(super) fn graph_of(&mut self, state: &mut State, run: &mut Run<'_>) -> Result<(), EngineError> {
        let nodes: Vec<i64> = state.graph.nodes.iter().map(|n| n.id).collect();
        self.ddmin(nodes, state, run, keep_nodes)?;
        let rels: Vec<i64> = state.graph.relationships.iter().map(|r| r.id).collect();
        self.ddmin(rels, state, run, |g, keep| g.relationships.retain(|r| keep.contains(&r.id)))?;
        let props: Vec<(i64, String)> = state
            .graph
            .nodes
            .iter()
            .flat_map(|n| n.properties.keys().map(move |k| (n.id, k.clone())))
            .chain(state.graph.relationships.iter().flat_map(|r| r.properties.keys().map(move |k| (r.id, k.clone()))))
            .collect();
        self.ddmin(props, state, run, keep_properties)?;
        let labels: Vec<(i64, String)> = state
            .graph
            .nodes
            .iter()
            .filter(|n| n.labels.len() > 1)
            .flat_map(|n| n.labels.iter().map(move |l| (n.id, l.clone())))
            .collect();
        self.ddmin(labels.clone(), state, run, |g, keep| keep_labels(g, &labels, keep))
    }

    /// Takes out of the current graph as many of `items` as it can (ddmin:
    /// chunks removed, the chunk size halved when none can go) while the
    /// finding still shows; `keep` makes a graph that holds only the items
    /// given it. The graph kept is loaded in the engines when it returns.
    pub(super) fn ddmin<T: Clone + Ord>(
        &mut self,
        items: Vec<T>,
        state: &mut State,
        run: &mut Run<'_>,
        keep: impl Fn(&mut Graph, &BTreeSet<T>),
    ) -> Result<(), EngineError> {
        let queries = state.group.clone();
        let mut current = items;
        let mut chunks = 2usize;
        while !current.is_empty() && !run.spent() {
            let size = current.len().div_ceil(chunks);
            let mut removed_one = false;
            let mut start = 0;
            while start < current.len() && !run.spent() {
                let end = (start + size).min(current.len());
                let rest: BTreeSet<T> = current[..start].iter().chain(&current[end..]).cloned().collect();
                let mut g = state.graph.clone();
                keep(&mut g, &rest);
                run.attempts += 1;
                if self.load(&g).is_ok()
                    && let Some(found) = self.trial(run, queries.clone())?
                {
                    current.drain(start..end);
                    state.graph = g;
                    state.best = Some(found);
                    removed_one = true;
                } else {
                    start = end;
                }
            }
            if !removed_one {
                if size <= 1 {
                    break;
                }
                chunks = (chunks * 2).min(current.len());
            }
        }
        // The engines hold whatever graph was tried last: put back the kept one.
        self.load(&state.graph)
    }
}

pub(super) fn keep_nodes(g: &mut Graph, keep: &BTreeSet<i64>) {
    g.nodes.retain(|n| keep.contains(&n.id));
    g.relationships.retain(|r| keep.contains(&r.start) && keep.contains(&r.end));
}

pub(super) fn keep_properties(g: &mut Graph, keep: &BTreeSet<(i64, String)>) {
    for n in &mut g.nodes {
        n.properties.retain(|k, _| keep.contains(&(n.id, k.clone())));
    }
    for r in &mut g.relationships {
        r.properties.retain(|k, _| keep.contains(&(r.id, k.clone())));
    }
}

/// Drops the labels of `all` not in `keep`, leaving every node one label.
pub(super) fn keep_labels(g: &mut Graph, all: &[(i64, String)], keep: &BTreeSet<(i64, String)>) {
    for n in &mut g.nodes {
        let labels = n.labels.clone();
        n.labels.retain(|l| !all.contains(&(n.id, l.clone())) || keep.contains(&(n.id, l.clone())));
        if n.labels.is_empty() {
            n.labels = labels.into_iter().take(1).collect();
        }
    }
}
