//! Large model files parsed in pieces: the toml crate tokenizes the whole text into vectors
//! before it builds the document (for a 19 MB file of 100,000 bodies, 720 MB whose page
//! faults alone cost 0.45 s of system time). A file of many `[[section]]` tables is the same
//! document as its pieces, cut before such headers, parsed one by one and joined. Only the
//! toml crate parses: every piece must parse and deserialize on its own and the pieces may
//! share no top-level key but arrays of tables; whenever that does not hold, or anything
//! fails, the caller parses the whole text instead (so errors are the whole text's).

use super::schema::{
    BeamDecl, BeamMaterialDecl, ContactDecl, Definition, DriveDecl, InputDecl, JointDecl, LoadDecl, MaterialDecl,
    ModelInfo, Number, OutputDecl, ParameterDecl, PlainInteger, PlainNumber, PlateDecl, PointMassDecl, RigidBodyDecl,
    SectionDecl, SolverDecl, SpringDecl, Tensor, VisualizationDecl, indexmap_like::OrderedTable,
};
use serde::Deserialize;
use std::collections::HashMap;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Texts shorter than this are parsed whole; longer ones in pieces of about this size.
pub const PIECE: usize = 64 * 1024;

/// The definition of `source` parsed in pieces of at least `piece` bytes, or `None` when
/// that cannot stand for parsing it whole (the caller then does; see the module's comment).
pub fn parse_in_pieces(source: &str, piece: usize) -> Option<Definition> {
    let mut all: Option<Part> = None;
    // The top-level keys seen, and whether each is an array of tables (`[[key]]`).
    let mut keys: HashMap<String, bool> = HashMap::new();
    let mut start = 0;
    for end in cuts(source, piece).chain([source.len()]) {
        let text = &source[start..end];
        let table = DeTable::parse(text).ok()?;
        for (key, value) in table.get_ref() {
            let headed = matches!(value.get_ref(), DeValue::Array(_))
                && text[..key.span().start].trim_end_matches([' ', '\t']).ends_with("[[");
            match keys.get(key.get_ref().as_ref()) {
                None => {
                    keys.insert(key.get_ref().to_string(), headed);
                }
                Some(&before) if before && headed => {}
                Some(_) => return None,
            }
        }
        let mut part = Part::deserialize(toml::de::Deserializer::from(table)).ok()?;
        part.shift(start);
        match &mut all {
            None => all = Some(part),
            Some(all) => all.append(part)?,
        }
        start = end;
    }
    all?.finish()
}

/// Where the pieces start: before a line that opens with `[[`, at least `piece` bytes after
/// the previous cut. Such a line inside a multi-line string or array leaves the piece
/// before it unterminated, so that piece fails to parse (and the text is parsed whole).
fn cuts(source: &str, piece: usize) -> impl Iterator<Item = usize> + '_ {
    let piece = piece.max(1);
    // The next cut is the first such line starting at `from` or later, found newline by
    // newline (`find` of a char is a `memchr`, cheaper than searching for "\n[[").
    let mut from = piece;
    std::iter::from_fn(move || {
        loop {
            let mut i = from - 1;
            if i >= source.len() {
                return None;
            }
            while !source.is_char_boundary(i) {
                i += 1;
            }
            let at = i + source[i..].find('\n')? + 1;
            if source[at..].starts_with("[[") {
                from = at + piece;
                return Some(at);
            }
            from = at + 1;
        }
    })
}

/// One piece's definition: `Definition` with every top-level key optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Part {
    model: Option<ModelInfo>,
    #[serde(default)]
    parameters: OrderedTable<ParameterDecl>,
    solver: Option<SolverDecl>,
    #[serde(default)]
    inputs: Vec<InputDecl>,
    #[serde(default)]
    point_masses: Vec<PointMassDecl>,
    #[serde(default)]
    rigid_bodies: Vec<RigidBodyDecl>,
    #[serde(default)]
    beams: Vec<BeamDecl>,
    #[serde(default)]
    plates: Vec<PlateDecl>,
    #[serde(default)]
    joints: Vec<JointDecl>,
    #[serde(default)]
    springs: Vec<SpringDecl>,
    #[serde(default)]
    loads: Vec<LoadDecl>,
    #[serde(default)]
    contacts: Vec<ContactDecl>,
    #[serde(default)]
    outputs: Vec<OutputDecl>,
    visualization: Option<VisualizationDecl>,
}

impl Part {
    /// Join the next piece. The pieces share no key but arrays of tables (checked on the
    /// parsed tables), so a section other than those comes from a single piece; the arrays
    /// are concatenated in the order of the text.
    fn append(&mut self, next: Part) -> Option<()> {
        fn once<T>(slot: &mut Option<T>, next: Option<T>) -> Option<()> {
            if let Some(v) = next {
                if slot.replace(v).is_some() {
                    return None;
                }
            }
            Some(())
        }
        let Part {
            model,
            parameters,
            solver,
            mut inputs,
            mut point_masses,
            mut rigid_bodies,
            mut beams,
            mut plates,
            mut joints,
            mut springs,
            mut loads,
            mut contacts,
            mut outputs,
            visualization,
        } = next;
        once(&mut self.model, model)?;
        once(&mut self.solver, solver)?;
        once(&mut self.visualization, visualization)?;
        if !parameters.0.is_empty() {
            if !self.parameters.0.is_empty() {
                return None;
            }
            self.parameters = parameters;
        }
        self.inputs.append(&mut inputs);
        self.point_masses.append(&mut point_masses);
        self.rigid_bodies.append(&mut rigid_bodies);
        self.beams.append(&mut beams);
        self.plates.append(&mut plates);
        self.joints.append(&mut joints);
        self.springs.append(&mut springs);
        self.loads.append(&mut loads);
        self.contacts.append(&mut contacts);
        self.outputs.append(&mut outputs);
        Some(())
    }

    /// The definition of all pieces; `None` without a `[model]` table.
    fn finish(self) -> Option<Definition> {
        let Part {
            model,
            parameters,
            solver,
            inputs,
            point_masses,
            rigid_bodies,
            beams,
            plates,
            joints,
            springs,
            loads,
            contacts,
            outputs,
            visualization,
        } = self;
        Some(Definition {
            model: model?,
            parameters,
            solver: solver.unwrap_or_default(),
            inputs,
            point_masses,
            rigid_bodies,
            beams,
            plates,
            joints,
            springs,
            loads,
            contacts,
            outputs,
            visualization,
        })
    }
}

/// Moving every span of a piece's definition by the piece's offset in the text.
trait Shift {
    fn shift(&mut self, by: usize);
}

/// A value to leave in a `Spanned` while its value is moved out.
trait Placeholder {
    fn placeholder() -> Self;
}

impl<T: Shift + Placeholder> Shift for Spanned<T> {
    fn shift(&mut self, by: usize) {
        let span = self.span();
        let mut value = std::mem::replace(self.get_mut(), T::placeholder());
        value.shift(by);
        *self = Spanned::new(span.start + by..span.end + by, value);
    }
}

impl<T: Shift> Shift for Option<T> {
    fn shift(&mut self, by: usize) {
        if let Some(v) = self {
            v.shift(by);
        }
    }
}

impl<T: Shift> Shift for Vec<T> {
    fn shift(&mut self, by: usize) {
        for v in self {
            v.shift(by);
        }
    }
}

impl<T> Placeholder for Vec<T> {
    fn placeholder() -> Self {
        Vec::new()
    }
}

impl<A: Shift, B: Shift> Shift for (A, B) {
    fn shift(&mut self, by: usize) {
        self.0.shift(by);
        self.1.shift(by);
    }
}

impl<T: Shift> Shift for OrderedTable<T> {
    fn shift(&mut self, by: usize) {
        self.0.shift(by);
    }
}

impl Shift for DriveDecl {
    fn shift(&mut self, by: usize) {
        match self {
            DriveDecl::One(n) => n.shift(by),
            DriveDecl::Each(e) => e.shift(by),
        }
    }
}

/// Values without spans inside.
macro_rules! leaves {
    ($($ty:ty => $placeholder:expr),* $(,)?) => {$(
        impl Shift for $ty {
            fn shift(&mut self, _: usize) {}
        }
        impl Placeholder for $ty {
            fn placeholder() -> Self {
                $placeholder
            }
        }
    )*};
}

leaves! {
    String => String::new(),
    f64 => 0.0,
    PlainNumber => PlainNumber(0.0),
    PlainInteger => PlainInteger(0),
    bool => false,
    [f64; 2] => [0.0; 2],
    Number => Number::Value(0.0),
    Tensor => Tensor::Scalar(Number::Value(0.0)),
    toml::Value => toml::Value::Boolean(false),
}

/// Structs: every field is named (no `..`), so a field added to the schema and left out
/// here does not compile.
macro_rules! structs {
    ($($ty:ident { $($field:ident),* $(,)? })*) => {$(
        impl Shift for $ty {
            fn shift(&mut self, by: usize) {
                let $ty { $($field),* } = self;
                $($field.shift(by);)*
            }
        }
    )*};
}

structs! {
    Part { model, parameters, solver, inputs, point_masses, rigid_bodies, beams, plates, joints, springs, loads,
        contacts, outputs, visualization }
    ModelInfo { name, description, gravity, dimension }
    VisualizationDecl { outputs }
    SolverDecl { integrator, rho_inf, step, tolerance, max_iterations, newton, constraints, baumgarte_alpha,
        baumgarte_beta, error_control, rtol, atol, start_time, stop_time, output_interval }
    InputDecl { name, unit, description, start }
    PointMassDecl { name, mass, position, velocity }
    RigidBodyDecl { name, mass, inertia, position, angle, axis, euler_parameters, velocity, angular_velocity }
    BeamDecl { name, start, end, elements, modes, section, material, formulation, center, y_axis, velocity,
        angular_velocity }
    SectionDecl { width, height, area, inertia, shear_factor, shape, radius, iy, iz, j, mass_per_length,
        rotary_inertia, ea, ga, ga_y, ga_z, ei, ei_y, ei_z, gj }
    BeamMaterialDecl { young, nu, rho, damping }
    MaterialDecl { young, nu, rho, damping }
    PlateDecl { name, size, thickness, material, origin, mesh, bodies, clamped, damping_ratio }
    JointDecl { name, kind, body1, body2, point, point1, point2, length, axis, axis2, rigid_section, drive }
    SpringDecl { name, kind, body1, point1, body2, point2, joint, coordinate, axis, stiffness, damping,
        free_length, fractional_order, memory }
    LoadDecl { name, kind, body, point, direction, follower, value, table }
    ContactDecl { name, kind, body1, point1, normal, radius1, body2, point2, radius2, method, stiffness,
        restitution, damping_model, min_impact_speed }
    OutputDecl { name, quantity, body, point, joint, coordinate, contact, chord, plate, frame, description }
}

impl Placeholder for SectionDecl {
    fn placeholder() -> Self {
        SectionDecl {
            width: None,
            height: None,
            area: None,
            inertia: None,
            shear_factor: None,
            shape: None,
            radius: None,
            iy: None,
            iz: None,
            j: None,
            mass_per_length: None,
            rotary_inertia: None,
            ea: None,
            ga: None,
            ga_y: None,
            ga_z: None,
            ei: None,
            ei_y: None,
            ei_z: None,
            gj: None,
        }
    }
}

impl Placeholder for BeamMaterialDecl {
    fn placeholder() -> Self {
        BeamMaterialDecl { young: None, nu: None, rho: None, damping: None }
    }
}

impl Placeholder for MaterialDecl {
    fn placeholder() -> Self {
        let zero = || Spanned::new(0..0, Number::Value(0.0));
        MaterialDecl { young: zero(), nu: zero(), rho: zero(), damping: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parsing in pieces gives the whole text's definition, spans included, or declines;
    /// it declines whenever the whole text is an error.
    fn agrees(text: &str) -> bool {
        let pieces = parse_in_pieces(text, 0);
        match toml::from_str::<Definition>(text) {
            Ok(whole) => match pieces {
                Some(p) => {
                    assert_eq!(format!("{whole:?}"), format!("{p:?}"), "{text}");
                    true
                }
                None => false,
            },
            Err(e) => {
                assert!(pieces.is_none(), "pieces parse what is an error whole ({e}):\n{text}");
                false
            }
        }
    }

    fn model_texts() -> Vec<String> {
        let mut texts = Vec::new();
        for dir in ["models", "tests/corpus"] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
            paths.sort();
            for p in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
                texts.push(std::fs::read_to_string(p).unwrap());
            }
        }
        texts
    }

    #[test]
    fn every_model_parses_alike_in_pieces() {
        let texts = model_texts();
        assert!(texts.len() > 20);
        for t in &texts {
            // Each `[[...]]` header starts a piece (tests/corpus/references.toml is no model).
            let model = toml::from_str::<Definition>(t).is_ok();
            assert!(agrees(t) || !model || !t.contains("\n[["), "{t}");
        }
    }

    #[test]
    fn edited_models_parse_alike_or_whole() {
        // Every line of every model removed, doubled, or followed by a header, a section
        // header, a key of another piece or the start of a multi-line string or array.
        let inserts = [
            "[[joints]]",
            "[model]",
            "[solver]",
            "[parameters]",
            "joints = []",
            "[joints.extra]",
            "[[joints.extra]]",
            "[[ point_masses ]]",
            "[\"outputs\"]",
            "description = \"\"\"",
            "x = [",
            "[[1.0]]",
            "[[true]]",
            "]",
            "\"\"\"",
        ];
        let mut pieced = 0;
        for t in model_texts() {
            let lines: Vec<&str> = t.lines().collect();
            for i in 0..lines.len() {
                let mut variants = vec![
                    lines.iter().enumerate().filter(|&(k, _)| k != i).map(|(_, l)| *l).collect::<Vec<_>>(),
                    lines[..=i].iter().chain(&lines[i..]).copied().collect(),
                ];
                for ins in inserts {
                    variants
                        .push(lines[..=i].iter().copied().chain([ins]).chain(lines[i + 1..].iter().copied()).collect());
                }
                for v in variants {
                    pieced += usize::from(agrees(&(v.join("\n") + "\n")));
                }
            }
        }
        assert!(pieced > 1000, "{pieced}");
    }

    #[test]
    fn cross_piece_conflicts_decline() {
        let head = "[model]\nname = \"m\"\n";
        let pm = "[[point_masses]]\nname = \"p\"\nmass = 1\nposition = [0, 0]\n";
        for text in [
            format!("{head}{pm}[model]\nname = \"n\"\n"),
            format!("{head}point_masses = []\n{pm}"),
            format!("{head}{pm}[[joints]]\nname = \"j\"\ntype = \"revolute\"\nbody2 = \"p\"\n[point_masses.x]\n"),
            format!("{head}[solver]\nstep = 1\n{pm}[solver]\ntolerance = 1\n"),
            format!("{head}[solver]\nstep = 1\n{pm}[solver.x]\n"),
            format!("{head}description = \"\"\"\n{pm}\"\"\"\n"),
            format!("{head}gravity = [\n[[1.0]]\n]\n{pm}"),
        ] {
            assert!(!agrees(&text), "{text}");
        }
        // Pieces without `[model]` in the first.
        assert!(agrees(&format!("{pm}{head}{pm}")));
    }

    #[test]
    fn cuts_are_line_starts_opening_with_brackets_a_piece_apart() {
        let text = "[model]\n[[a]]\nx = 1\n[[b]]\ny = \"é\"\n  [[c]]\n[[d]]\n[x]\n[[e]]\n";
        for piece in 0..text.len() + 2 {
            let mut expected = Vec::new();
            let mut last = 0;
            for (i, _) in text.match_indices("\n[[") {
                if i + 1 >= last + piece.max(1) {
                    last = i + 1;
                    expected.push(i + 1);
                }
            }
            assert_eq!(cuts(text, piece).collect::<Vec<_>>(), expected, "{piece}");
        }
    }

    #[test]
    fn large_models_are_parsed_in_pieces() {
        let mut text = String::from("[model]\nname = \"many\"\ngravity = [0.0, -9.81]\n");
        for i in 0..5000 {
            text += &format!("[[point_masses]]\nname = \"p{i}\"\nmass = 1.0\nposition = [{i}.0, 0.0]\n");
            text += &format!("[[joints]]\nname = \"j{i}\"\ntype = \"prismatic\"\nbody2 = \"p{i}\"\naxis = [1, 0]\n");
        }
        assert!(text.len() > 2 * PIECE);
        let whole: Definition = toml::from_str(&text).unwrap();
        let pieces = parse_in_pieces(&text, PIECE).expect("pieces");
        assert_eq!(format!("{whole:?}"), format!("{pieces:?}"));
    }
}
