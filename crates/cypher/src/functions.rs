//! The built-in functions graphlancer writes: name, parameters, result and
//! the generator production of each, in one table. The generator takes
//! names and arities from it and the checker its typing rules, so the two
//! cannot drift apart (after sqlsmith's function table keyed by type).

use crate::Feature;
use crate::ast::Expr;
use crate::types::Ty;

/// What a parameter accepts, or what a function returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A boolean.
    Bool,
    /// An integer.
    Int,
    /// A float.
    Float,
    /// A string.
    String,
    /// A path.
    Path,
    /// A node.
    Node,
    /// A relationship.
    Rel,
    /// A map.
    Map,
    /// An integer or a float.
    Number,
    /// A node or a relationship.
    Entity,
    /// A string or a list (`size`).
    Sized,
    /// A list of anything.
    List,
    /// A list of strings.
    StringList,
    /// A list of integers.
    IntList,
    /// A list of nodes.
    NodeList,
    /// A list of relationships.
    RelList,
    /// A list of floats.
    FloatList,
    /// A list of booleans.
    BoolList,
    /// As a result: the first argument's type.
    Same,
    /// As a result: the first argument's element type.
    Element,
    /// Anything; as a result, the type the arguments share (`coalesce`).
    Any,
}

impl Kind {
    /// The one type of this kind, where there is one.
    pub fn ty(self) -> Option<Ty> {
        Some(match self {
            Kind::Bool => Ty::Bool,
            Kind::Int => Ty::Int,
            Kind::Float => Ty::Float,
            Kind::String => Ty::String,
            Kind::Path => Ty::Path,
            Kind::Node => Ty::Node,
            Kind::Rel => Ty::Rel,
            Kind::Map => Ty::Map,
            Kind::StringList => Ty::String.list(),
            Kind::IntList => Ty::Int.list(),
            Kind::NodeList => Ty::Node.list(),
            Kind::RelList => Ty::Rel.list(),
            Kind::FloatList => Ty::Float.list(),
            Kind::BoolList => Ty::Bool.list(),
            _ => return None,
        })
    }

    /// Whether a value of type `t` (`None`: null) may be passed.
    pub fn accepts(self, t: &Option<Ty>) -> bool {
        match (self, t) {
            (_, None) | (Kind::Any, _) => true,
            (Kind::Number, Some(Ty::Int | Ty::Float))
            | (Kind::Entity, Some(Ty::Node | Ty::Rel))
            | (Kind::Sized, Some(Ty::String | Ty::List(_)))
            | (Kind::List, Some(Ty::List(_))) => true,
            (k, Some(t)) => k.ty().as_ref() == Some(t),
        }
    }
}

/// One built-in function.
#[derive(Debug)]
pub struct Function {
    /// Its name as written.
    pub name: &'static str,
    /// The production that writes it.
    pub feature: Feature,
    /// Its parameters; `coalesce` takes any number of its one.
    pub params: &'static [Kind],
    /// What it returns.
    pub result: Kind,
}

impl Function {
    /// Whether it takes any number of arguments.
    pub fn variadic(&self) -> bool {
        self.feature == Feature::FnCoalesce
    }
}

const fn f(name: &'static str, feature: Feature, params: &'static [Kind], result: Kind) -> Function {
    Function { name, feature, params, result }
}

use Kind as K;

/// Every function the generator writes and the checker types.
pub const FUNCTIONS: &[Function] = &[
    f("toUpper", Feature::FnToUpper, &[K::String], K::String),
    f("toLower", Feature::FnToLower, &[K::String], K::String),
    f("trim", Feature::FnTrim, &[K::String], K::String),
    f("ltrim", Feature::FnLTrim, &[K::String], K::String),
    f("rtrim", Feature::FnRTrim, &[K::String], K::String),
    f("reverse", Feature::FnReverse, &[K::String], K::String),
    f("replace", Feature::FnReplace, &[K::String, K::String, K::String], K::String),
    f("substring", Feature::FnSubstring, &[K::String, K::Int, K::Int], K::String),
    f("left", Feature::FnLeft, &[K::String, K::Int], K::String),
    f("right", Feature::FnRight, &[K::String, K::Int], K::String),
    f("split", Feature::FnSplit, &[K::String, K::String], K::StringList),
    f("toString", Feature::FnToString, &[K::Int], K::String),
    f("size", Feature::FnSize, &[K::Sized], K::Int),
    f("length", Feature::FnLength, &[K::Path], K::Int),
    f("nodes", Feature::FnNodes, &[K::Path], K::NodeList),
    f("relationships", Feature::FnRelationships, &[K::Path], K::RelList),
    f("type", Feature::FnType, &[K::Rel], K::String),
    f("startNode", Feature::FnStartNode, &[K::Rel], K::Node),
    f("endNode", Feature::FnEndNode, &[K::Rel], K::Node),
    f("keys", Feature::FnKeys, &[K::Node], K::StringList),
    f("labels", Feature::FnLabels, &[K::Node], K::StringList),
    f("properties", Feature::FnProperties, &[K::Entity], K::Map),
    f("head", Feature::FnHead, &[K::List], K::Element),
    f("last", Feature::FnLast, &[K::List], K::Element),
    f("tail", Feature::FnTail, &[K::List], K::Same),
    f("range", Feature::FnRange, &[K::Int, K::Int], K::IntList),
    f("coalesce", Feature::FnCoalesce, &[K::Any], K::Any),
    f("toInteger", Feature::FnToInteger, &[K::Int], K::Int),
    f("toFloat", Feature::FnToFloat, &[K::Int], K::Float),
    f("toBoolean", Feature::FnToBoolean, &[K::Bool], K::Bool),
    f("abs", Feature::FnAbs, &[K::Number], K::Same),
    f("sign", Feature::FnSign, &[K::Number], K::Int),
    f("ceil", Feature::FnCeil, &[K::Number], K::Float),
    f("floor", Feature::FnFloor, &[K::Number], K::Float),
    f("round", Feature::FnRound, &[K::Number], K::Float),
    f("sqrt", Feature::FnSqrt, &[K::Number], K::Float),
    f("exp", Feature::FnExp, &[K::Number], K::Float),
    f("log", Feature::FnLog, &[K::Number], K::Float),
    f("sin", Feature::FnSin, &[K::Number], K::Float),
    f("cos", Feature::FnCos, &[K::Number], K::Float),
    f("id", Feature::FnId, &[K::Entity], K::Int),
    f("rand", Feature::FnRand, &[], K::Float),
    f("timestamp", Feature::FnTimestamp, &[], K::Int),
    f("log10", Feature::FnLog10, &[K::Number], K::Float),
    f("tan", Feature::FnTan, &[K::Number], K::Float),
    f("cot", Feature::FnTan, &[K::Number], K::Float),
    f("asin", Feature::FnArc, &[K::Number], K::Float),
    f("acos", Feature::FnArc, &[K::Number], K::Float),
    f("atan", Feature::FnArc, &[K::Number], K::Float),
    f("atan2", Feature::FnArc, &[K::Number, K::Number], K::Float),
    f("degrees", Feature::FnAngles, &[K::Number], K::Float),
    f("radians", Feature::FnAngles, &[K::Number], K::Float),
    f("haversin", Feature::FnAngles, &[K::Number], K::Float),
    f("pi", Feature::FnConstants, &[], K::Float),
    f("e", Feature::FnConstants, &[], K::Float),
    f("isNaN", Feature::FnIsNaN, &[K::Number], K::Bool),
    f("isEmpty", Feature::FnIsEmpty, &[K::Sized], K::Bool),
    f("lower", Feature::FnLowerUpper, &[K::String], K::String),
    f("upper", Feature::FnLowerUpper, &[K::String], K::String),
    f("btrim", Feature::FnBTrim, &[K::String, K::String], K::String),
    f("ltrim", Feature::FnTrimChars, &[K::String, K::String], K::String),
    f("rtrim", Feature::FnTrimChars, &[K::String, K::String], K::String),
    f("char_length", Feature::FnCharLength, &[K::String], K::Int),
    f("character_length", Feature::FnCharLength, &[K::String], K::Int),
    f("normalize", Feature::FnNormalize, &[K::String], K::String),
    f("nullIf", Feature::FnNullIf, &[K::Any, K::Any], K::Same),
    f("toIntegerOrNull", Feature::FnOrNull, &[K::Any], K::Int),
    f("toFloatOrNull", Feature::FnOrNull, &[K::Any], K::Float),
    f("toBooleanOrNull", Feature::FnOrNull, &[K::Any], K::Bool),
    f("toStringOrNull", Feature::FnOrNull, &[K::Any], K::String),
    f("toIntegerList", Feature::FnToList, &[K::List], K::IntList),
    f("toFloatList", Feature::FnToList, &[K::List], K::FloatList),
    f("toStringList", Feature::FnToList, &[K::List], K::StringList),
    f("toBooleanList", Feature::FnToList, &[K::List], K::BoolList),
    f("range", Feature::FnRangeStep, &[K::Int, K::Int, K::Int], K::IntList),
    f("reverse", Feature::FnReverseList, &[K::List], K::Same),
];

/// Aggregates and the feature of each.
pub const AGGREGATES: [(&str, Feature); 10] = [
    ("count", Feature::Count),
    ("sum", Feature::Sum),
    ("avg", Feature::Avg),
    ("min", Feature::Min),
    ("max", Feature::Max),
    ("collect", Feature::Collect),
    ("stDev", Feature::StDev),
    ("stDevP", Feature::StDev),
    ("percentileDisc", Feature::Percentile),
    ("percentileCont", Feature::Percentile),
];

/// The production of the aggregate called `name`.
pub fn aggregate(name: &str) -> Option<Feature> {
    AGGREGATES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Every overload of the function called `name` (`range` of two and of
/// three arguments, `reverse` of a string and of a list).
pub fn overloads(name: &str) -> impl Iterator<Item = &'static Function> + '_ {
    FUNCTIONS.iter().filter(move |f| f.name == name)
}

/// A call of the function `name` of the family `feature` writes
/// (`tan` or `cot` of [`Feature::FnTan`]).
///
/// # Panics
/// When `feature` does not write `name`: a generator defect.
pub fn call_named(feature: Feature, name: &str, args: Vec<Expr>) -> Expr {
    assert!(overloads(name).any(|f| f.feature == feature), "{feature} does not write {name}");
    Expr::Function(name.into(), args)
}

/// The function a production writes.
///
/// # Panics
/// When `feature` writes no function: a generator defect.
pub fn of(feature: Feature) -> &'static Function {
    FUNCTIONS.iter().find(|f| f.feature == feature).unwrap_or_else(|| panic!("{feature} writes no function"))
}

/// A call of the function `feature` writes.
pub fn call(feature: Feature, args: Vec<Expr>) -> Expr {
    let f = of(feature);
    debug_assert!(f.variadic() || f.params.len() == args.len(), "{} takes {} arguments", f.name, f.params.len());
    Expr::Function(f.name.into(), args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_production_has_an_entry_and_each_entry_one_production() {
        for feature in Feature::ALL.iter().filter(|f| f.name().starts_with("fn_")) {
            assert!(FUNCTIONS.iter().any(|f| f.feature == *feature), "{feature}");
        }
        for f in FUNCTIONS {
            assert!(f.feature.name().starts_with("fn_"), "{}", f.name);
            assert!(overloads(f.name).any(|g| g.feature == f.feature));
            // Overloads of one name differ in their parameters.
            assert_eq!(overloads(f.name).filter(|g| g.params == f.params).count(), 1, "{}", f.name);
        }
    }
}
