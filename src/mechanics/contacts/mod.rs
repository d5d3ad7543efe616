//! The contact geometries of `[[contacts]]` (docs/model-file.md): each geometry lives in its
//! own file and says how a declaration becomes the gap s(q) (with exact gradient and Hessian)
//! and the reach (sum of the radii) of the penetration delta = reach - s, in planar and/or
//! spatial models. `CONTACT_TYPES` is the one table of geometries; both assemblers look the
//! `type` key up there, and [`element`] makes the force element (Hertz force with hysteresis
//! damping, Guo et al. 2017 eqs. 6-10, src/mechanics/forces/contact.rs) or the unilateral
//! constraint (sec. 2.3.1, src/mechanics/joints/contact_constraint.rs) on the gap, in either
//! dimension. Adding a geometry is its file plus one line in the table.
//!
//! The assemblers hand the geometries what they need through the one `Site` trait
//! (src/mechanics/site.rs: `PlanarSite` / `SpatialSite` by the anchor type), so this module
//! depends on neither assembler.

pub mod plane;
pub mod sphere_sphere;

use super::contact_gap::ContactGap;
use super::forces::{Contact, DampingModel};
use super::joints::ContactConstraint;
use super::kind_list::listing;
pub use super::site::{PlanarSite, SpatialSite};
use crate::compact_number::Compact;
use crate::model::schema::{ContactDecl, Name, Num};
use crate::model::{Model, ModelError, Scope};

/// The gap s(q) and the reach of a contact: delta = reach - s.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    pub gap: ContactGap,
    pub reach: f64,
}

type Planar = fn(&ContactDecl, &dyn PlanarSite) -> Result<Geometry, ModelError>;
type Spatial = fn(&ContactDecl, &dyn SpatialSite) -> Result<Geometry, ModelError>;

/// One contact geometry: its `type` names (the planar word first, e.g. circle, then the
/// spatial word, e.g. sphere; both are accepted in either dimension) and its builders
/// (`None` where it does not exist).
pub struct ContactType {
    pub names: &'static [&'static str],
    pub planar: Option<Planar>,
    pub spatial: Option<Spatial>,
}

/// Every contact geometry, in the order error messages list them.
pub const CONTACT_TYPES: &[ContactType] = &[plane::POINT, plane::SPHERE, sphere_sphere::TYPE];

/// "a, b or c", each type with its other name in parentheses.
fn list(types: &[&ContactType]) -> String {
    let names: Vec<String> = types
        .iter()
        .map(|t| match t.names {
            [one] => one.to_string(),
            [first, rest @ ..] => format!("{first} ({})", rest.join(", ")),
            [] => String::new(),
        })
        .collect();
    listing(&names, "or")
}

fn find<'a>(
    c: &ContactDecl,
    model: &Model,
    has: impl Fn(&ContactType) -> bool,
    what: &str,
) -> Result<&'a ContactType, ModelError> {
    let name = c.kind.get_ref().as_str();
    CONTACT_TYPES.iter().find(|t| t.names.contains(&name) && has(t)).ok_or_else(|| {
        let known: Vec<_> = CONTACT_TYPES.iter().filter(|t| has(t)).collect();
        model.error(c.kind.span(), format!("unknown contact type '{name}'{what}, expected {}", list(&known)))
    })
}

/// The planar geometry of the contact's type; an unknown type is a located error.
pub fn planar(c: &ContactDecl, model: &Model) -> Result<Planar, ModelError> {
    let t = find(c, model, |t| t.planar.is_some(), "")?;
    Ok(t.planar.expect("filtered"))
}

/// The spatial geometry of the contact's type; an unknown type is a located error.
pub fn spatial(c: &ContactDecl, model: &Model) -> Result<Spatial, ModelError> {
    let t = find(c, model, |t| t.spatial.is_some(), " in a spatial model")?;
    Ok(t.spatial.expect("filtered"))
}

/// body1 of the entry (ground by default).
pub fn body1(c: &ContactDecl) -> Name {
    // Omitted, ground at the entry's name: what refers to it is located there (it was line 1).
    c.body1.clone().unwrap_or_else(|| Name::new(c.name.span(), "ground".to_string()))
}

/// A radius key: required (`wanted`) and positive, or refused.
pub fn radius(
    c: &ContactDecl,
    scope: &Scope,
    model: &Model,
    r: &Option<Num>,
    key: &str,
    wanted: bool,
) -> Result<f64, ModelError> {
    match (r, wanted) {
        (Some(r), true) => scope.positive(r, key),
        (None, true) => Err(model.error(c.kind.span(), format!("a {} contact needs `{key}`", c.kind.get_ref()))),
        (Some(r), false) => {
            Err(model.error(r.span(), format!("`{key}` does not apply to a {} contact", c.kind.get_ref())))
        }
        (None, false) => Ok(0.0),
    }
}

/// What a `[[contacts]]` entry becomes: a force element or a unilateral constraint.
pub enum ContactElement {
    Force(Contact),
    Constraint(ContactConstraint),
}

/// The least restitution of a force contact: its damping factor grows as 1/e (the exact
/// model's root lies below 1/e), and below 1e-3 the hysteresis force outgrows what a step can
/// follow (a probe's e = 1e-300 dissipated -5.6e282 J and bounced the ball above its drop
/// height; e = 1e-3 and 1e-2 settle as e = 0.05 does). The constraint method takes e = 0.
pub const MIN_FORCE_RESTITUTION: f64 = 1e-3;

/// The contact element of the entry's `method` on its geometry (the keys common to every
/// geometry and both dimensions: method, restitution, stiffness, damping_model,
/// min_impact_speed).
pub fn element(
    c: &ContactDecl,
    geometry: Geometry,
    scope: &Scope,
    model: &Model,
    q0: &[f64],
) -> Result<ContactElement, ModelError> {
    let Geometry { gap, reach } = geometry;
    let min_speed =
        c.min_impact_speed.as_ref().map(|v| scope.positive(v, "min_impact_speed")).transpose()?.unwrap_or(1e-3);
    let e = scope.number(&c.restitution)?;
    let method = c.method.as_ref().map(|m| scope.text(m)).transpose()?;
    let damping_model = c.damping_model.as_ref().map(|d| scope.text(d)).transpose()?;
    match method.as_ref().map(|m| (m.get_ref().as_str(), m.span())) {
        None | Some(("force", _)) => {}
        Some(("constraint", _)) => {
            // With `method = "$param"` one entry serves both methods: the force-only keys are
            // then simply not used by the constraint.
            let chosen = c.method.as_ref().is_some_and(|m| m.get_ref().starts_with('$'));
            if let Some(k) = c.stiffness.as_ref().filter(|_| !chosen) {
                return Err(model.error(
                    k.span(),
                    "`stiffness` applies only to method = \"force\" (a contact constraint is rigid)".into(),
                ));
            }
            if let Some(d) = damping_model.as_ref().filter(|_| !chosen) {
                return Err(model.error(d.span(), "`damping_model` applies only to method = \"force\"".into()));
            }
            if !(0.0..=1.0).contains(&e) {
                return Err(model.error(c.restitution.span(), format!("restitution must be in [0, 1], got {e}")));
            }
            let k = ContactConstraint::new(gap, reach, e, min_speed);
            let overlap = k.penetration(q0);
            if overlap > 1e-9 * (1.0 + q0.iter().fold(0.0f64, |a, x| a.max(x.abs()))) {
                return Err(model.error(c.name.span(), format!("the bodies overlap by {overlap:.3e} m initially; a contact constraint must start touching or apart")));
            }
            return Ok(ContactElement::Constraint(k));
        }
        Some((other, span)) => {
            return Err(model.error(span, format!("unknown contact method '{other}', expected force or constraint")));
        }
    }
    let Some(stiffness) = &c.stiffness else {
        return Err(model.error(c.name.span(), "a force contact needs `stiffness` (N/m^1.5)".into()));
    };
    let stiffness = scope.positive(stiffness, "stiffness")?;
    if !(MIN_FORCE_RESTITUTION..=1.0).contains(&e) {
        // Below the range a plastic impact is meant, which the constraint method takes.
        let plastic = if e < MIN_FORCE_RESTITUTION {
            " (for a plastic impact use method = \"constraint\", which takes 0)"
        } else {
            " (above 1 an impact would create energy)"
        };
        return Err(model.error(
            c.restitution.span(),
            format!(
                "restitution of a force contact must be in [{MIN_FORCE_RESTITUTION}, 1], got {}{plastic}",
                Compact(e)
            ),
        ));
    }
    let damping = match damping_model.as_ref().map(|d| (d.get_ref().as_str(), d.span())) {
        None | Some(("exact", _)) => DampingModel::Exact,
        Some(("lankarani_nikravesh", _)) => DampingModel::LankaraniNikravesh,
        Some((other, span)) => {
            return Err(
                model.error(span, format!("unknown damping_model '{other}', expected exact or lankarani_nikravesh"))
            );
        }
    };
    let mut contact = Contact::new(gap, reach, stiffness, e, damping, min_speed);
    contact.name = c.name.get_ref().clone();
    Ok(ContactElement::Force(contact))
}

/// A force contact starting deeper than this fraction of its radii is warned of.
const DEEP_START: f64 = 0.1;

/// The warning for a force contact that starts deep in (more than `DEEP_START` of the radii):
/// its elastic energy K delta^(n+1)/(n+1) is set free at the first steps and throws the bodies
/// apart (a probe's 0.05 m ball drawn 10 m below its floor left at 1908 m/s without a word; a
/// body resting on a contact sinks only (m g / K)^(1/n)). A constraint contact refuses any
/// overlap instead.
pub fn deep_start_warning(c: &ContactDecl, f: &Contact, q0: &[f64], model: &Model) -> Option<ModelError> {
    let depth = f.penetration(q0);
    (f.reach > 0.0 && depth > DEEP_START * f.reach).then(|| {
        let energy = f.stiffness * depth.powf(f.exponent + 1.0) / (f.exponent + 1.0);
        model.error(
            c.name.span(),
            format!(
                "the bodies start {depth:.3e} m deep in this contact ({:.0} % of the radii): its elastic energy \
                 {energy:.3e} J is set free at the first steps and throws them apart; check the positions",
                100.0 * depth / f.reach,
            ),
        )
    })
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::ContactGap;

    /// The worst |analytic - central difference| of the gap's gradient and Hessian at q.
    pub fn worst_derivative_errors(gap: &ContactGap, q: &[f64]) -> (f64, f64) {
        let d = gap.derivatives(q);
        assert!((d.value - gap.value(q)).abs() < 1e-14);
        let n = gap.dofs().len();
        let h = 1e-6;
        let (mut worst_g, mut worst_h): (f64, f64) = (0.0, 0.0);
        for (a, &i) in gap.dofs().iter().enumerate() {
            let (mut qp, mut qm) = (q.to_vec(), q.to_vec());
            qp[i] += h;
            qm[i] -= h;
            worst_g = worst_g.max(((gap.value(&qp) - gap.value(&qm)) / (2.0 * h) - d.gradient[a]).abs());
            let (dp, dm) = (gap.derivatives(&qp), gap.derivatives(&qm));
            for b in 0..n {
                worst_h = worst_h.max(((dp.gradient[b] - dm.gradient[b]) / (2.0 * h) - d.hessian[a * n + b]).abs());
            }
        }
        (worst_g, worst_h)
    }
}
