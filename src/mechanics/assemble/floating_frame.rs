//! Points of planar floating-frame beams (paper 004 eq. 1) as the rest of a model names them:
//! "<beam>.end" is the tip, "<beam>" with a `point` on its undeformed axis any other material
//! point. No `Anchor` describes such a point (its position depends on the frame and the
//! modal coordinates), so joints, loads, contacts and outputs at one are built here: the
//! assembler asks this file first and builds the ordinary body case when it answers `None`.

use super::{Builder, unit};
use crate::mechanics::System;
use crate::mechanics::contact_gap::ContactGap;
use crate::mechanics::elements::{FloatingFrameBeam2d, FloatingFramePoint};
use crate::mechanics::joints::{ConstraintRow, JointKind, axis_only};
use crate::mechanics::outputs::OutputKind;
use crate::model::ModelError;
use crate::model::schema::{ContactDecl, JointDecl, LoadDecl, Name, OutputDecl, Vec2};
use std::collections::HashMap;

/// The floating-frame beams by name (maps: a lookup per joint, load, contact and output
/// keeps assembly linear in the model's size).
#[derive(Default)]
pub(super) struct FloatingPoints {
    /// "<beam>.end" of each floating_frame beam → its index among the `FloatingFrameBeam2d`
    /// elements.
    tips: HashMap<String, usize>,
    /// "<beam>" of each floating_frame beam → its index (contacts, joints and loads at a
    /// material point given by `point`/`point2`).
    beams: HashMap<String, usize>,
}

impl FloatingPoints {
    /// Register beam `name`, the `index`-th `FloatingFrameBeam2d`.
    pub(super) fn insert(&mut self, name: &str, index: usize) {
        self.tips.insert(format!("{name}.end"), index);
        self.beams.insert(name.to_string(), index);
    }

    /// Whether `name` is a floating-frame beam or its tip.
    pub(super) fn names(&self, name: &str) -> bool {
        self.tips.contains_key(name) || self.beams.contains_key(name)
    }
}

impl Builder<'_> {
    /// A material point of a floating-frame beam named by `body` (paper 004 eq. 1 at its
    /// abscissa): "<beam>.end" is the tip (no `point`), "<beam>" with `point` on the
    /// undeformed axis any other point. None if `body` names neither.
    fn floating_point(
        &self,
        body: &Name,
        point: Option<&Vec2>,
        key: &str,
        floating: &[FloatingFrameBeam2d],
        q0: &[f64],
    ) -> Result<Option<FloatingFramePoint>, ModelError> {
        let name = body.get_ref();
        if let Some(&beam) = self.floating.tips.get(name) {
            if let Some(p) = point {
                return Err(self.err(p.span(), format!("`{key}` is not supported on a floating_frame beam tip; the point is the tip itself (for another point use the beam's name)")));
            }
            return Ok(Some(floating[beam].tip_point()));
        }
        let Some(&beam) = self.floating.beams.get(name) else { return Ok(None) };
        let Some(p2) = point else {
            return Err(self.err(body.span(), format!("a point of floating_frame beam '{name}' needs `{key}`, a point of its axis (or use '{name}.end' for the tip)")));
        };
        let p = self.scope.vec2(p2)?;
        let f = &floating[beam];
        let x = f.tip_point().first;
        let (s, co) = q0[x + 2].sin_cos();
        let d = [p[0] - q0[x], p[1] - q0[x + 1]];
        let (along, off) = (co * d[0] + s * d[1], -s * d[0] + co * d[1]);
        let tol = 1e-9 * (1.0 + f.length);
        if off.abs() > tol || along < -tol || along > f.length + tol {
            return Err(self.err(p2.span(), format!("{key} must lie on the beam's axis between its ends (it is {along:.6} m along and {off:.3e} m off the axis, length {})", f.length)));
        }
        Ok(Some(f.material_point(along.clamp(0.0, f.length))))
    }
}

/// A joint whose body2 is a point P of a floating-frame beam: a revolute joint whose rows
/// x . (r_P - r_A) and y . (r_P - r_A) hold their initial values; its rows and body2's first
/// coordinate. `None` if body2 is no such point. A floating-frame point as body1 is refused.
pub(super) fn joint(
    j: &JointDecl,
    kind: JointKind,
    body1: &Name,
    b: &Builder,
    sys: &System,
    q0: &[f64],
) -> Result<Option<(Vec<ConstraintRow>, usize)>, ModelError> {
    let model = b.model;
    if b.floating.names(body1.get_ref()) {
        return Err(model.error(
            body1.span(),
            "put the floating_frame beam point in body2 (body1 is ground or another body)".into(),
        ));
    }
    if kind != JointKind::Revolute && b.floating.names(j.body2.get_ref()) {
        return Err(model.error(
            j.kind.span(),
            format!("only revolute joints act at a point of a floating_frame beam, got '{}'", j.kind.get_ref()),
        ));
    }
    let Some(p) = b.floating_point(&j.body2, j.point.as_ref(), "point", sys.elements::<FloatingFrameBeam2d>(), q0)?
    else {
        return Ok(None);
    };
    if let Some(ax) = &j.axis {
        return Err(model.error(ax.span(), axis_only(false)));
    }
    if let Some(rs) = &j.rigid_section {
        return Err(model.error(rs.span(), "rigid_section applies to ANCF beam nodes".into()));
    }
    if let Some(d) = &j.drive {
        return Err(model.error(
            d.span(),
            "`drive` is not available at a floating_frame beam point (its section angle is not a joint coordinate)"
                .into(),
        ));
    }
    let at = p.position(q0);
    let pt = Vec2::new(j.point.as_ref().map_or(j.name.span(), |p| p.span()), vec![at[0].into(), at[1].into()]);
    let a1 = b.anchor(body1, Some(&pt))?;
    let beam = p.first..p.first + p.coordinates();
    if a1.dofs().iter().any(|i| beam.contains(i)) {
        return Err(model
            .error(body1.span(), "a joint needs two different bodies (this is the same floating_frame beam)".into()));
    }
    let rows = [[1.0, 0.0], [0.0, 1.0]]
        .into_iter()
        .map(|u| ConstraintRow::holding(ContactGap::floating_joint(p.clone(), a1, u), q0))
        .collect();
    Ok(Some((rows, p.first)))
}

/// Where a force at a material point of a floating-frame beam acts (004 eq. 1; the load is
/// J^T F, `Load::floating_force`): the point and the unit direction. `None` if the load's body
/// is no such point.
pub(super) fn load_point(
    l: &LoadDecl,
    b: &Builder,
    sys: &System,
    q0: &[f64],
) -> Result<Option<(FloatingFramePoint, [f64; 2])>, ModelError> {
    let model = b.model;
    let Some(point) =
        b.floating_point(&l.body, l.point.as_ref(), "point", sys.elements::<FloatingFrameBeam2d>(), q0)?
    else {
        return Ok(None);
    };
    if l.kind.get_ref() != "force" {
        return Err(model.error(l.kind.span(), format!("only `type = \"force\"` loads act at a point of a floating_frame beam (apply torques to its frame, '<beam>.start'), got '{}'", l.kind.get_ref())));
    }
    if let Some(f) = l.follower.as_ref().filter(|f| *f.get_ref()) {
        return Err(model.error(f.span(), "follower loads are not available at points of a floating_frame beam".into()));
    }
    let Some(dir) = &l.direction else {
        return Err(model.error(l.kind.span(), "a force needs `direction = [x, y]`".into()));
    };
    let u = unit(b.scope.vec2(dir)?).ok_or_else(|| model.error(dir.span(), "direction must not be zero".into()))?;
    Ok(Some((point, u)))
}

/// Body2 of a contact as a point of a floating-frame beam, against ground only; `None` if it
/// is no such point. Also checks that body1 is a known body and no floating-frame point.
pub(super) fn contact_body2(
    c: &ContactDecl,
    body1: &Name,
    b: &Builder,
    sys: &System,
    q0: &[f64],
) -> Result<Option<FloatingFramePoint>, ModelError> {
    let model = b.model;
    // Either body may be ground (a fixed plane or a fixed circle), not both (checked by the
    // caller); a floating-frame beam tip only as body2 against ground.
    if b.floating.names(body1.get_ref()) {
        return Err(model.error(
            body1.span(),
            "a point of a floating_frame beam must be body2 of a contact (body1 = \"ground\")".into(),
        ));
    }
    let floating = sys.elements::<FloatingFrameBeam2d>();
    let tip = b.floating_point(&c.body2, c.point2.as_ref(), "point2", floating, q0)?;
    let b1 = b.body(body1)?;
    if tip.is_some() && b1.is_some() {
        // The tip of a floating-frame beam (paper 004 eq. 1 at x = L) against ground.
        return Err(model.error(
            body1.span(),
            "a contact at a floating_frame beam tip needs body1 = \"ground\" (a fixed plane or circle)".into(),
        ));
    }
    Ok(tip)
}

/// An output at the tip of a floating-frame beam: position (global, or in a `frame` body's
/// axes) and section rotation from the frame and the modes (paper 004 eq. 1 at x = L). `None`
/// if its body is no tip.
pub(super) fn tip_output(o: &OutputDecl, b: &Builder) -> Result<Option<OutputKind>, ModelError> {
    let model = b.model;
    let q = o.quantity.get_ref().as_str();
    let Some(&beam) = o.body.as_ref().and_then(|name| b.floating.tips.get(name.get_ref())) else {
        return Ok(None);
    };
    if let Some(p) = &o.point {
        return Err(model.error(
            p.span(),
            "`point` is not supported on a floating_frame beam tip; the output is the tip itself".into(),
        ));
    }
    let quantity = ["x", "y", "angle"].iter().position(|s| *s == q).ok_or_else(|| {
        model.error(
            o.quantity.span(),
            format!("output quantity '{q}' is not available on a floating_frame beam tip yet (available: x, y, angle)"),
        )
    })?;
    let frame = match &o.frame {
        Some(f) if quantity == 2 => {
            return Err(model.error(f.span(), format!("`frame` applies only to positions (x, y), not '{q}'")));
        }
        Some(f) => Some(b.frame(f)?),
        None => None,
    };
    Ok(Some(OutputKind::FloatingFrameTip { beam, quantity, frame }))
}
