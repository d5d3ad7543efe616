//! The spring types of `[[springs]]` (docs/model-file.md): each type lives in its own file
//! and says how a declaration becomes the measure s the spring-damper acts on, in planar
//! and/or spatial models. `SPRING_TYPES` is the one table of types; the assemblers look the
//! `type` key up there and build the element (`SpringDamper`, or `FractionalSpringDamper`
//! with `fractional_order`, in either dimension) on the measure with `push_element`. Adding a type is its file plus one line in the table.
//!
//! The assemblers hand the types what they need through the one `Site` trait
//! (src/mechanics/site.rs: `PlanarSite` / `SpatialSite` by the anchor type), so this module
//! depends on neither assembler.

pub mod joint_coordinate;
pub mod point_to_point;
pub mod rotational;

use super::System;
use super::forces::{FractionalSpringDamper, SpringDamper};
use super::kind_list::listing;
use super::kinematics::Measure;
pub use super::site::{PlanarSite, Site, SpatialSite};
use crate::model::expr::Expr;
use crate::model::schema::SpringDecl;
use crate::model::{Model, ModelError, Scope};

type Planar = fn(&SpringDecl, &dyn PlanarSite) -> Result<Measure, ModelError>;
type Spatial = fn(&SpringDecl, &dyn SpatialSite) -> Result<Measure, ModelError>;

/// One spring type: its `type` name and its measure in planar and spatial models (`None`
/// where it does not exist).
pub struct SpringType {
    pub name: &'static str,
    pub planar: Option<Planar>,
    pub spatial: Option<Spatial>,
}

/// Every spring type, in the order error messages list them.
pub const SPRING_TYPES: &[SpringType] =
    &[point_to_point::TYPE, joint_coordinate::PRISMATIC, joint_coordinate::TORSIONAL, rotational::TYPE];

/// The type named by `s` (default `point_to_point`).
fn type_name(s: &SpringDecl) -> &str {
    s.kind.as_ref().map_or("point_to_point", |k| k.get_ref().as_str())
}

/// The planar measure builder of the spring's type; an unknown type is a located error.
pub fn planar(s: &SpringDecl, model: &Model) -> Result<Planar, ModelError> {
    let name = type_name(s);
    SPRING_TYPES.iter().find(|t| t.name == name).and_then(|t| t.planar).ok_or_else(|| {
        let known: Vec<_> = SPRING_TYPES.iter().filter(|t| t.planar.is_some()).map(|t| t.name).collect();
        let span = s.kind.as_ref().map_or(s.name.span(), |k| k.span());
        model.error(span, format!("unknown spring type '{name}', expected {}", listing(&known, "or")))
    })
}

/// The spatial measure builder of the spring's type; an unknown type is a located error.
pub fn spatial(s: &SpringDecl, model: &Model) -> Result<Spatial, ModelError> {
    let name = type_name(s);
    SPRING_TYPES.iter().find(|t| t.name == name).and_then(|t| t.spatial).ok_or_else(|| {
        let known: Vec<_> = SPRING_TYPES.iter().filter(|t| t.spatial.is_some()).map(|t| t.name).collect();
        let span = s.kind.as_ref().map_or(s.name.span(), |k| k.span());
        model
            .error(span, format!("unknown spring type '{name}' in a spatial model, expected {}", listing(&known, "or")))
    })
}

/// The spring element on the measure `measure` (either dimension): a `SpringDamper`, or a
/// `FractionalSpringDamper` (paper 003 eqs. 7-10) with `fractional_order`; the keys common to
/// every type (stiffness, damping, free_length, fractional_order, memory). `scope` resolves
/// parameters, `t` and the inputs: the free length s0(t, u) is a time function like a load's
/// magnitude (omitted: the initial measure), which must be finite at the start time `t0` with
/// the inputs' start values (`sys.inputs`).
pub fn push_element(
    s: &SpringDecl,
    measure: Measure,
    scope: &Scope,
    t0: f64,
    model: &Model,
    q0: &[f64],
    sys: &mut System,
) -> Result<(), ModelError> {
    let stiffness = s.stiffness.as_ref().map(|k| scope.non_negative(k, "stiffness")).transpose()?.unwrap_or(0.0);
    let damping = s.damping.as_ref().map(|c| scope.non_negative(c, "damping")).transpose()?.unwrap_or(0.0);
    let free_length = match &s.free_length {
        Some(l) => scope.time_function(l, "free_length")?,
        None => Expr::Num(measure.value(q0)),
    };
    if let Some(l) = &s.free_length {
        sys.watch(
            model.watch_label(l, format!("the free_length of spring '{}'", s.name.get_ref())),
            &free_length,
            false,
        );
    }
    let start = free_length.eval(t0, &sys.inputs);
    if let (Some(l), false) = (&s.free_length, start.is_finite()) {
        return Err(model.error(l.span(), format!("free_length is {start} at t = {t0}, the start time")));
    }
    match &s.fractional_order {
        Some(order_num) => {
            let order = scope.number(order_num)?;
            if !(0.0..=1.0).contains(&order) {
                return Err(model.error(order_num.span(), format!("fractional_order must be in [0, 1], got {order}")));
            }
            let memory = s.memory.as_ref().map(|m| scope.positive(m, "memory")).transpose()?;
            sys.push(FractionalSpringDamper::new(measure, stiffness, damping, order, free_length, start, memory));
        }
        None => {
            if let Some(m) = &s.memory {
                return Err(model
                    .error(m.span(), "`memory` applies only to fractional dampers (give `fractional_order`)".into()));
            }
            sys.push(SpringDamper { measure, stiffness, damping, free_length });
        }
    }
    Ok(())
}

/// `axis` belongs to rotational springs of spatial models only.
fn no_axis(s: &SpringDecl, model: &Model) -> Result<(), ModelError> {
    match &s.axis {
        Some(a) => Err(model.error(a.span(), "`axis` applies only to rotational springs in spatial models".into())),
        None => Ok(()),
    }
}

/// `coordinate` names a coordinate of a prismatic or torsional spring's joint; the types on
/// bodies refuse it.
fn no_coordinate(s: &SpringDecl, model: &Model) -> Result<(), ModelError> {
    match &s.coordinate {
        Some(c) => Err(model
            .error(c.span(), "`coordinate` names the coordinate of a prismatic or torsional spring's joint".into())),
        None => Ok(()),
    }
}
