//! Stress resultants of a corotational beam at a node (the outputs `axial_force`,
//! `shear_force`, `bending_moment`; spatial `shear_force_y`, `shear_force_z`,
//! `torsional_moment`, `bending_moment_y`, `bending_moment_z`): the force and moment that the
//! part of the beam beyond the node (towards its end) exerts on the part before it, in the
//! element's axes (the positive-face convention of beam theory: N = EA eps, tension positive;
//! M = EI kappa). Each element gives them at its two nodes from its local elastic and
//! material-damping forces (`CorotationalBeam2d::end_resultants`, `AncfBeam2d::end_resultants`,
//! `CorotationalBeam3d::end_resultants`); at a node between two elements the mean of the two.
//! In statics the two agree exactly in the moments (the node's moment balance), and in the
//! forces up to the turn between the two elements' axes; in motion they differ by the node's
//! share of the inertia forces, which vanishes as the mesh is refined.

use super::System;
use super::elements::{AncfBeam2d, CorotationalBeam2d, CorotationalBeam3d, Element};
use super::outputs::OutputKind;

/// The beam element kinds with section forces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionBeam {
    Corotational2d,
    Ancf2d,
    Corotational3d,
}

impl SectionBeam {
    /// Each element's first and last node (their first coordinates).
    fn ends(self, sys: &System) -> Vec<(usize, usize)> {
        match self {
            SectionBeam::Corotational2d => {
                sys.elements::<CorotationalBeam2d>().iter().map(|e| (e.dofs()[0], e.dofs()[3])).collect()
            }
            SectionBeam::Ancf2d => sys.elements::<AncfBeam2d>().iter().map(|e| (e.dofs()[0], e.dofs()[8])).collect(),
            SectionBeam::Corotational3d => {
                sys.elements::<CorotationalBeam3d>().iter().map(|e| (e.dofs()[0], e.dofs()[7])).collect()
            }
        }
    }

    /// Component `component` (0..6 of (N, Vy, Vz, T, My, Mz)) at end `end` (0 first node, 1
    /// last) of element `k`; a planar element's (N, V, M) are the components 0, 1 and 5.
    fn end_resultant(self, sys: &System, k: usize, end: usize, component: usize, q: &[f64], v: &[f64]) -> f64 {
        match self {
            SectionBeam::Corotational2d => {
                sys.elements::<CorotationalBeam2d>()[k].end_resultants(q, v)[end][component.min(2)]
            }
            SectionBeam::Ancf2d => sys.elements::<AncfBeam2d>()[k].end_resultants(q, v)[end][component.min(2)],
            SectionBeam::Corotational3d => sys.elements::<CorotationalBeam3d>()[k].end_resultants(q, v)[end][component],
        }
    }
}

/// The section force `component` (0..6 of (N, Vy, Vz, T, My, Mz); a planar beam has 0, 1 and
/// 5) at the node whose coordinates start at `x` (named `body`). An error if `body` is no
/// element end of a beam with section forces.
pub fn section_output(sys: &System, x: usize, body: &str, component: usize) -> Result<OutputKind, String> {
    let kinds: &[SectionBeam] =
        if sys.spatial { &[SectionBeam::Corotational3d] } else { &[SectionBeam::Corotational2d, SectionBeam::Ancf2d] };
    for &beam in kinds {
        let ends = beam.ends(sys);
        // The element that ends at the node and the one that starts there.
        let elements = [ends.iter().position(|n| n.1 == x), ends.iter().position(|n| n.0 == x)];
        if elements != [None, None] {
            return Ok(OutputKind::SectionForce { beam, elements, component });
        }
    }
    Err(format!(
        "section forces are a beam's at the ends of its elements (`arm.node[k]`, `arm.start`, `arm.end` of a beam \
         with formulation timoshenko, euler_bernoulli or ancf; not an ANCF middle node `arm.mid[k]`, nor a \
         floating_frame beam); '{body}' is none"
    ))
}

/// The value of `OutputKind::SectionForce` at (q, v).
pub fn section_force(
    sys: &System,
    beam: SectionBeam,
    elements: &[Option<usize>; 2],
    component: usize,
    q: &[f64],
    v: &[f64],
) -> f64 {
    let mut sum = 0.0;
    let mut count = 0.0;
    for (end, element) in [1, 0].into_iter().zip(elements) {
        if let Some(k) = *element {
            sum += beam.end_resultant(sys, k, end, component, q, v);
            count += 1.0;
        }
    }
    sum / count
}
