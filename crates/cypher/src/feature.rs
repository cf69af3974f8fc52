//! The productions of the generator, by name. Dialect profiles enable them,
//! weights bias them, and every generated query records the ones it used, so
//! coverage can be counted.

use serde::{Deserialize, Serialize};

macro_rules! features {
    ($($variant:ident = $name:literal,)*) => {
        /// One production of the generator.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(into = "&'static str", try_from = "String")]
        pub enum Feature { $(#[doc = $name] $variant,)* }

        impl Feature {
            /// Every feature, in declaration order.
            pub const ALL: &'static [Feature] = &[$(Feature::$variant,)*];

            /// The feature's name in profiles, configs and reports.
            pub fn name(self) -> &'static str {
                match self { $(Feature::$variant => $name,)* }
            }
        }
    };
}

features! {
    // Clauses.
    Match = "match",
    OptionalMatch = "optional_match",
    MatchWhere = "match_where",
    With = "with",
    WithDistinct = "with_distinct",
    WithWhere = "with_where",
    Unwind = "unwind",
    ReturnDistinct = "return_distinct",
    ReturnStar = "return_star",
    OrderBy = "order_by",
    OrderByDesc = "order_by_desc",
    Skip = "skip",
    Limit = "limit",
    Union = "union",
    UnionAll = "union_all",
    CallSubquery = "call_subquery",
    Create = "create",
    Merge = "merge",
    MergeOnCreate = "merge_on_create",
    MergeOnMatch = "merge_on_match",
    SetProperty = "set_property",
    SetMergeMap = "set_merge_map",
    SetReplaceMap = "set_replace_map",
    SetLabel = "set_label",
    SetItems = "set_items",
    RemoveProperty = "remove_property",
    RemoveLabel = "remove_label",
    Delete = "delete",
    DetachDelete = "detach_delete",
    Foreach = "foreach",
    ReadAfterWrite = "read_after_write",
    ReadsWritten = "reads_written",
    ReuseWithFilter = "reuse_with_filter",
    // Boundary values and degenerate forms (the `boundary` probability).
    BoundaryValues = "boundary_values",
    DegenerateForms = "degenerate_forms",
    EmptyMap = "empty_map",
    // Spellings: synonyms openCypher offers, which never change a query's meaning.
    ReturnAll = "return_all",
    OrderByAscending = "order_by_ascending",
    Offset = "offset",
    UnionDistinct = "union_distinct",
    RelBothArrows = "rel_both_arrows",
    RelAbbreviated = "rel_abbreviated",
    IsLabel = "is_label",
    ChainedComparison = "chained_comparison",
    MapProjectionAll = "map_projection_all",
    ExistsPattern = "exists_pattern",
    DoubleQuotedStrings = "double_quoted_strings",
    IntegerBases = "integer_bases",
    FloatForms = "float_exponent",
    FloatLeadingPoint = "float_leading_point",
    VarLengthShort = "var_length_short",
    UnaryPlus = "unary_plus",
    DynamicProperty = "dynamic_property",
    CountSubquery = "count_subquery",
    // Patterns.
    PatternLabel = "pattern_label",
    PatternMultiLabel = "pattern_multi_label",
    PatternProperties = "pattern_properties",
    RelUndirected = "rel_undirected",
    RelIncoming = "rel_incoming",
    RelTypeAlternatives = "rel_type_alternatives",
    VarLength = "var_length",
    NamedPath = "named_path",
    MultiplePatterns = "multiple_patterns",
    // Operators.
    Add = "add",
    Subtract = "subtract",
    Multiply = "multiply",
    Divide = "divide",
    Modulo = "modulo",
    Power = "power",
    Negate = "negate",
    Compare = "compare",
    Equality = "equality",
    And = "and",
    Or = "or",
    Xor = "xor",
    Not = "not",
    IsNull = "is_null",
    InList = "in_list",
    StartsWith = "starts_with",
    EndsWith = "ends_with",
    Contains = "contains",
    Regex = "regex",
    StringConcat = "string_concat",
    ListConcat = "list_concat",
    // Expression forms.
    CaseSimple = "case_simple",
    CaseGeneric = "case_generic",
    CaseNoElse = "case_no_else",
    ListLiteral = "list_literal",
    ListIndex = "list_index",
    ListSlice = "list_slice",
    ListComprehension = "list_comprehension",
    PatternComprehension = "pattern_comprehension",
    MapLiteral = "map_literal",
    MapProjection = "map_projection",
    MapProjectionEntries = "map_projection_entries",
    ExistsSubquery = "exists_subquery",
    PatternPredicate = "pattern_predicate",
    ShortestPath = "shortest_path",
    NodeWhere = "node_where",
    LabelAnd = "label_and",
    CallProcedure = "call_procedure",
    LabelOr = "label_or",
    LabelNot = "label_not",
    CaseWhenList = "case_when_list",
    QuantifiedRelationship = "quantified_relationship",
    ParenthesizedPath = "parenthesized_path",
    RelWhere = "rel_where",
    LabelPredicate = "label_predicate",
    Quantifier = "quantifier",
    Reduce = "reduce",
    // Aggregates.
    Count = "count",
    CountStar = "count_star",
    Sum = "sum",
    Avg = "avg",
    Min = "min",
    Max = "max",
    Collect = "collect",
    StDev = "stdev",
    Percentile = "percentile",
    PercentileDistinct = "percentile_distinct",
    AggregateDistinct = "aggregate_distinct",
    // Functions.
    FnToUpper = "fn_toUpper",
    FnToLower = "fn_toLower",
    FnTrim = "fn_trim",
    FnLTrim = "fn_ltrim",
    FnRTrim = "fn_rtrim",
    FnReplace = "fn_replace",
    FnSubstring = "fn_substring",
    FnLeft = "fn_left",
    FnRight = "fn_right",
    FnSplit = "fn_split",
    FnReverse = "fn_reverse",
    FnSize = "fn_size",
    FnLength = "fn_length",
    FnNodes = "fn_nodes",
    FnRelationships = "fn_relationships",
    FnStartNode = "fn_startNode",
    FnEndNode = "fn_endNode",
    FnType = "fn_type",
    FnLabels = "fn_labels",
    FnKeys = "fn_keys",
    FnProperties = "fn_properties",
    FnHead = "fn_head",
    FnLast = "fn_last",
    FnTail = "fn_tail",
    FnRange = "fn_range",
    FnCoalesce = "fn_coalesce",
    FnToString = "fn_toString",
    FnToInteger = "fn_toInteger",
    FnToFloat = "fn_toFloat",
    FnToBoolean = "fn_toBoolean",
    FnAbs = "fn_abs",
    FnSign = "fn_sign",
    FnCeil = "fn_ceil",
    FnFloor = "fn_floor",
    FnRound = "fn_round",
    FnSqrt = "fn_sqrt",
    FnExp = "fn_exp",
    FnLog = "fn_log",
    FnSin = "fn_sin",
    FnCos = "fn_cos",
    FnId = "fn_id",
    FnRand = "fn_rand",
    FnTimestamp = "fn_timestamp",
    FnLog10 = "fn_log10",
    FnTan = "fn_tan",
    FnArc = "fn_asin",
    FnAngles = "fn_degrees",
    FnConstants = "fn_pi",
    FnIsNaN = "fn_isNaN",
    FnIsEmpty = "fn_isEmpty",
    FnLowerUpper = "fn_lower",
    FnBTrim = "fn_btrim",
    FnTrimChars = "fn_trim_chars",
    FnCharLength = "fn_char_length",
    FnNormalize = "fn_normalize",
    FnNullIf = "fn_nullIf",
    FnOrNull = "fn_toIntegerOrNull",
    FnToList = "fn_toIntegerList",
    FnRangeStep = "fn_range_step",
    FnReverseList = "fn_reverse_list",
}

impl From<Feature> for &'static str {
    fn from(f: Feature) -> Self {
        f.name()
    }
}

/// A feature name no production has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown feature '{0}'")]
pub struct UnknownFeature(pub String);

impl TryFrom<String> for Feature {
    type Error = UnknownFeature;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl std::str::FromStr for Feature {
    type Err = UnknownFeature;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Feature::ALL.iter().copied().find(|f| f.name() == s).ok_or_else(|| UnknownFeature(s.to_owned()))
    }
}

impl std::fmt::Display for Feature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        let mut names: Vec<&str> = Feature::ALL.iter().map(|f| f.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Feature::ALL.len());
        for f in Feature::ALL {
            assert_eq!(f.name().parse::<Feature>(), Ok(*f));
        }
    }
}
