//! How a beam's section is given in the model file, for both assemblers (`assemble/beam.rs`,
//! `assemble_spatial/beam.rs`): by its geometry (`width`/`height`, `area`/`inertia`, ...) with
//! the material's E, nu and rho, or by its stress resultants (`EA`, `GA`, `EI`; spatial `GAy`,
//! `GAz`, `EIy`, `EIz`, `GJ`) with `mass_per_length`, as published benchmarks give them. The
//! two never mix: a geometry key or a material E, nu or rho beside a resultant is a located
//! error, as is a resultant section without its mass. The material's `damping` applies to
//! both.

use crate::model::schema::{BeamDecl, Num};
use crate::model::{ModelError, Scope};

/// How the beam's section is given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Given {
    /// By its geometry and the material's Young's modulus (Pa), Poisson's ratio and density
    /// (kg/m^3).
    Geometry { young: f64, nu: f64, rho: f64 },
    /// By its stress resultants, with the mass per unit length (kg/m).
    Resultants { mass_per_length: f64 },
}

/// The resultant keys of `section` that are given, in the schema's order, with their names.
fn resultants(bd: &BeamDecl) -> Vec<(&Num, &'static str)> {
    let s = bd.section.get_ref();
    [
        (&s.ea, "EA"),
        (&s.ga, "GA"),
        (&s.ga_y, "GAy"),
        (&s.ga_z, "GAz"),
        (&s.ei, "EI"),
        (&s.ei_y, "EIy"),
        (&s.ei_z, "EIz"),
        (&s.gj, "GJ"),
    ]
    .into_iter()
    .filter_map(|(n, key)| n.as_ref().map(|n| (n, key)))
    .collect()
}

/// How `bd`'s section is given; a located error where the keys contradict each other or one
/// is missing: a resultant beside a geometry key (`width`, `area`, `shear_factor`, ...) or
/// the material's E, nu or rho, a resultant section without `mass_per_length`, a geometric
/// one without its material or with nu outside (-1, 0.5).
pub(crate) fn given(scope: &Scope, bd: &BeamDecl) -> Result<Given, ModelError> {
    let model = scope.model;
    let sec = bd.section.get_ref();
    let material = bd.material.as_ref().map(|m| m.get_ref());
    let given = resultants(bd);
    if let Some(&(_, first)) = given.first() {
        let geometry = [
            (sec.width.as_ref().map(|n| n.span()), "section.width"),
            (sec.height.as_ref().map(|n| n.span()), "section.height"),
            (sec.area.as_ref().map(|n| n.span()), "section.area"),
            (sec.inertia.as_ref().map(|n| n.span()), "section.inertia"),
            (sec.shape.as_ref().map(|n| n.span()), "section.shape"),
            (sec.radius.as_ref().map(|n| n.span()), "section.radius"),
            (sec.iy.as_ref().map(|n| n.span()), "section.iy"),
            (sec.iz.as_ref().map(|n| n.span()), "section.iz"),
            (sec.j.as_ref().map(|n| n.span()), "section.j"),
            (sec.shear_factor.as_ref().map(|n| n.span()), "section.shear_factor"),
            (material.and_then(|m| m.young.as_ref()).map(|n| n.span()), "material.E"),
            (material.and_then(|m| m.nu.as_ref()).map(|n| n.span()), "material.nu"),
            (material.and_then(|m| m.rho.as_ref()).map(|n| n.span()), "material.rho"),
        ];
        if let Some((Some(span), key)) = geometry.into_iter().find(|(s, _)| s.is_some()) {
            let instead = if key.starts_with("material") {
                "with them the material takes only `damping`"
            } else if key == "section.shear_factor" {
                "GA is the effective shear stiffness k G A"
            } else {
                "a section is given either by its geometry with the material's E, nu and rho, or by its \
                 resultants with mass_per_length"
            };
            return Err(model.error(
                span,
                format!("`{key}` contradicts the section's stress resultants (`{first}` is given): {instead}"),
            ));
        }
        let Some(m) = &sec.mass_per_length else {
            return Err(model.error(
                bd.section.span(),
                format!(
                    "a section given by its stress resultants (`{first}`) needs `mass_per_length` (kg/m): it has no \
                     density to make it from"
                ),
            ));
        };
        return Ok(Given::Resultants { mass_per_length: scope.positive(m, "mass_per_length")? });
    }
    let Some(material) = &bd.material else {
        return Err(model.error(
            bd.name.span(),
            "the beam needs `material = { E, nu, rho }`, or its section given by its stress resultants (EA, EI, ... \
             with mass_per_length)"
                .into(),
        ));
    };
    let mat = material.get_ref();
    let needed = |n: &Option<Num>, key: &str| -> Result<f64, ModelError> {
        let Some(n) = n else {
            return Err(model.error(
                material.span(),
                format!(
                    "the material needs `{key}` (E in Pa, nu, rho in kg/m^3), or the section its stress resultants \
                     (EA, EI, ... with mass_per_length)"
                ),
            ));
        };
        if key == "nu" { scope.number(n) } else { scope.positive(n, key) }
    };
    let young = needed(&mat.young, "E")?;
    let rho = needed(&mat.rho, "rho")?;
    let nu = needed(&mat.nu, "nu")?;
    if !(nu > -1.0 && nu < 0.5) {
        let span = mat.nu.as_ref().map_or(material.span(), |n| n.span());
        return Err(model.error(span, format!("nu must be in (-1, 0.5), got {nu}")));
    }
    Ok(Given::Geometry { young, nu, rho })
}

/// The material's Kelvin-Voigt damping beta (s, >= 0; default 0), with either kind of section.
pub(crate) fn damping(scope: &Scope, bd: &BeamDecl) -> Result<f64, ModelError> {
    let d = bd.material.as_ref().and_then(|m| m.get_ref().damping.as_ref());
    Ok(d.map(|d| scope.non_negative(d, "damping")).transpose()?.unwrap_or(0.0))
}

/// A resultant `key` the formulation needs: positive, or a located error (at the section when
/// it is missing, saying `what` it is).
pub(crate) fn required(
    scope: &Scope,
    bd: &BeamDecl,
    n: &Option<Num>,
    key: &str,
    what: &str,
) -> Result<f64, ModelError> {
    match n {
        Some(n) => scope.positive(n, key),
        None => Err(scope
            .model
            .error(bd.section.span(), format!("a section given by its stress resultants needs `{key}` ({what})"))),
    }
}

/// A resultant the formulation may leave unused (a shear stiffness of an Euler-Bernoulli beam):
/// positive when given.
pub(crate) fn optional(scope: &Scope, n: &Option<Num>, key: &str) -> Result<Option<f64>, ModelError> {
    n.as_ref().map(|n| scope.positive(n, key)).transpose()
}

/// The period (s) of a beam's first bending vibration, estimated as that of a pinned-pinned
/// beam of its length, w1 = (pi/L)^2 sqrt(EI/(rho A)) (Blevins, "Formulas for natural
/// frequency and mode shape", 1979, table 8-1): between the clamped-free beam's (2.8 times
/// slower) and the free-free beam's (2.3 times faster). For the warning of a step that does not
/// resolve it (`Simulation::new`).
pub(crate) fn bending_period(length: f64, ei: f64, mass_per_length: f64) -> f64 {
    2.0 * length * length / (std::f64::consts::PI * (ei / mass_per_length).sqrt())
}

/// The period (s) of a spatial beam's first torsional vibration, estimated as that of a beam
/// held against twist at both ends, w1 = (pi/L) sqrt(GJ/(rho I_p)) (Blevins 1979, table 8-19;
/// the clamped-free beam's is 2 times slower), `polar_inertia` = rho I_p per length.
pub(crate) fn torsion_period(length: f64, gj: f64, polar_inertia: f64) -> f64 {
    2.0 * length / (gj / polar_inertia).sqrt()
}
