//! Stress resultants of a beam at an element end (the outputs `axial_force`, `shear_force`,
//! `bending_moment`; spatial `shear_force_y`, `shear_force_z`, `torsional_moment`,
//! `bending_moment_y`, `bending_moment_z`): the force and moment that the part of the beam
//! beyond the node (towards its end) exerts on the part before it, in the element's axes (the
//! positive-face convention of beam theory: N = EA eps, tension positive; M = EI kappa).
//!
//! Each element gives them at its two nodes as the force and moment the node holds its end
//! with: the element's whole share of the equations of motion there (its inertia, elastic and
//! damping forces, less its weight and the distributed loads on it), the end forces of beam
//! theory (k u less the fixed-end loads; `CorotationalBeam2d::end_resultants`,
//! `AncfBeam2d::end_resultants`, `CorotationalBeam3d::end_resultants`). So the section at a
//! free end without a point load carries nothing, under self-weight and in motion too, and at
//! a supported end the section force is the support's reaction less what the node itself
//! carries. At a node between two elements the value is the mean of the two elements', which
//! differ by a point load or a joint's force at the node (the section force jumps there) and
//! by the turn between the two elements' axes.

use super::System;
use super::elements::{AncfBeam2d, CorotationalBeam2d, CorotationalBeam3d, Element, Kin};
use super::forces::line_load::LineSegment;
use super::forces::load::LoadKind;
use super::forces::spatial_load::SpatialLoadKind;
use super::forces::{Load, SpatialLoad};
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
    /// last) of element `k` in the state `x`; a planar element's (N, V, M) are the components
    /// 0, 1 and 5.
    fn end_resultant(self, sys: &System, k: usize, end: usize, component: usize, x: &Kin) -> f64 {
        match self {
            SectionBeam::Corotational2d => {
                let e = &sys.elements::<CorotationalBeam2d>()[k];
                let nodes = [e.dofs()[0], e.dofs()[3]];
                let mut loads = nalgebra::SVector::<f64, 6>::zeros();
                planar_line_loads(
                    sys,
                    x,
                    |s| matches!(s, LineSegment::Chord { nodes: n, .. } if *n == nodes),
                    |i, f| loads[i] += f,
                );
                e.end_resultants(x, &loads)[end][component.min(2)]
            }
            SectionBeam::Ancf2d => {
                let e = &sys.elements::<AncfBeam2d>()[k];
                let nodes = [e.dofs()[0], e.dofs()[4], e.dofs()[8]];
                let mut loads = nalgebra::SVector::<f64, 12>::zeros();
                // The segment's (x, y) of its three nodes are the element's coordinates 0, 1,
                // 4, 5, 8, 9.
                planar_line_loads(
                    sys,
                    x,
                    |s| matches!(s, LineSegment::Quadratic { nodes: n, .. } if *n == nodes),
                    |i, f| loads[4 * (i / 2) + i % 2] += f,
                );
                e.end_resultants(x, &loads)[end][component.min(2)]
            }
            SectionBeam::Corotational3d => {
                let e = &sys.elements::<CorotationalBeam3d>()[k];
                let mut loads = [0.0; 14];
                for load in sys.elements::<SpatialLoad>() {
                    if let SpatialLoadKind::Line { element, direction: u } = &load.kind
                        && element.dofs() == e.dofs()
                    {
                        let f = load.magnitude.eval(x.t, x.inputs, x.rates);
                        for (l, qk) in loads.iter_mut().zip(element.line_load_force(x.q, u.map(|uk| f * uk))) {
                            *l += qk;
                        }
                    }
                }
                e.end_resultants(x, &loads)[end][component]
            }
        }
    }
}

/// The distributed loads on the planar element whose `LineSegment` passes `on`: their
/// generalized forces, each component given to `out` with its index in the segment's dofs.
fn planar_line_loads(sys: &System, x: &Kin, on: impl Fn(&LineSegment) -> bool, mut out: impl FnMut(usize, f64)) {
    for load in sys.elements::<Load>() {
        if let LoadKind::Line { segment, direction: u } = &load.kind
            && on(segment)
        {
            let f = load.magnitude.eval(x.t, x.inputs, x.rates);
            segment.generalized_force([f * u[0], f * u[1]], x.q, &mut out);
        }
    }
}

/// The coordinates whose accelerations a section force at the ends of `elements` reads (the
/// FMU's output dependencies).
pub fn section_dofs(sys: &System, beam: SectionBeam, elements: &[Option<usize>; 2]) -> Vec<usize> {
    let dofs = |k: usize| -> Vec<usize> {
        match beam {
            SectionBeam::Corotational2d => sys.elements::<CorotationalBeam2d>()[k].dofs().to_vec(),
            SectionBeam::Ancf2d => sys.elements::<AncfBeam2d>()[k].dofs().to_vec(),
            SectionBeam::Corotational3d => sys.elements::<CorotationalBeam3d>()[k].dofs().to_vec(),
        }
    };
    let mut all: Vec<usize> = elements.iter().flatten().flat_map(|&k| dofs(k)).collect();
    all.sort_unstable();
    all.dedup();
    all
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
        "'{body}' is not where a beam's section forces are: they are at the ends of its elements (`arm.node[k]`, \
         `arm.start`, `arm.end` of a beam with formulation timoshenko, euler_bernoulli or ancf; not at an ANCF \
         middle node `arm.mid[k]`, on a floating_frame beam, or on a rigid body or point mass)"
    ))
}

/// The value of `OutputKind::SectionForce` in the state `x` (consistent accelerations).
pub fn section_force(sys: &System, beam: SectionBeam, elements: &[Option<usize>; 2], component: usize, x: &Kin) -> f64 {
    let mut sum = 0.0;
    let mut count = 0.0;
    for (end, element) in [1, 0].into_iter().zip(elements) {
        if let Some(k) = *element {
            sum += beam.end_resultant(sys, k, end, component, x);
            count += 1.0;
        }
    }
    sum / count
}
