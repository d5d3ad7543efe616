//! The FMU's variable table: one list, shared by modelDescription.xml and the C API, so
//! value references and names cannot drift apart.

use crate::model::{ModelError, ParameterReach};
use crate::simulation::{
    ConstraintTreatment, Experiment, Method, Model, ParameterKind, Simulation, SimulationError, SolverSettings,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarType {
    Real,
    Integer,
    /// A string parameter; its value is an index into `Variable::choices`.
    String,
}

impl VarType {
    /// The type's name in the FMI version whose function is `function` ("fmi3GetInt32": Int32;
    /// a probe read FMI 2's "Integer" in an FMI 3 message).
    pub fn name_in(self, function: &str) -> &'static str {
        match (self, function.starts_with("fmi3")) {
            (VarType::Real, false) => "Real",
            (VarType::Real, true) => "Float64",
            (VarType::Integer, false) => "Integer",
            (VarType::Integer, true) => "Int32",
            (VarType::String, _) => "String",
        }
    }
}

/// A tunable solver setting exposed as a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SolverField {
    Integrator,
    RhoInf,
    Step,
    Tolerance,
    Constraints,
    BaumgarteAlpha,
    BaumgarteBeta,
    ErrorControl,
    Rtol,
    Atol,
}

/// What a variable refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Index into `model.parameters`.
    Parameter(usize),
    Solver(SolverField),
    /// Index into the model's inputs.
    Input(usize),
    /// Index into the simulation's outputs.
    Output(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    pub name: String,
    /// Value reference = 0-based position in the list (unique across all types).
    pub vr: u32,
    pub ty: VarType,
    pub role: Role,
    pub unit: String,
    pub description: String,
    pub start: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// The allowed values of a String variable (its `start` indexes them).
    pub choices: Vec<String>,
    /// An output: the indices of the inputs it depends on directly (ascending,
    /// `Simulation::direct_dependencies`); empty for the other variables.
    pub input_dependencies: Vec<usize>,
    /// A model parameter that may change between steps (`Simulation::tunable_parameters`);
    /// the solver settings are always tunable, other variables never.
    pub tunable: bool,
    /// An output that is a function of the configuration alone (a position, an angle, a
    /// penetration: `Simulation::configuration_outputs`).
    pub configuration: bool,
    /// An output that is 0 at the start whatever the knowns (the energy dissipated or
    /// supplied: `OutputKind::zero_at_start`).
    pub zero_at_start: bool,
    /// An output that changes only at events (`OutputKind::is_discrete`).
    pub discrete: bool,
    /// An output: the inputs whose value in initialization mode may change its initial value
    /// besides `input_dependencies` (`Simulation::initial_input_dependencies`: in a model with
    /// a driving input, the configuration follows the drives with the forces).
    pub initial_inputs: Vec<usize>,
    /// A model parameter: what of the initial state its value can reach
    /// (`Model::parameter_reach`); `Everything` for the other variables.
    pub reach: ParameterReach,
}

impl Variable {
    /// The start value as text (String variables).
    pub fn start_text(&self) -> Option<&str> {
        self.start.and_then(|s| self.choices.get(s as usize)).map(String::as_str)
    }

    /// 1-based index in `<ModelVariables>`.
    pub fn index(&self) -> usize {
        self.vr as usize + 1
    }
}

/// The unit of a dimensionless Real (FMI 2.0 sec. 2.2.2: the unit "1", all exponents 0):
/// the solver's ratios and tolerances, Euler parameters, a contact's on/off state. Model
/// parameters keep the unit their model file declares.
pub const DIMENSIONLESS: &str = "1";

/// Integer code of an integrator in `solver_integrator` (position in `Method::ALL`).
pub fn method_code(m: Method) -> i32 {
    Method::ALL.iter().position(|x| *x == m).unwrap_or(0) as i32
}

pub fn method_from_code(code: i32) -> Option<Method> {
    usize::try_from(code).ok().and_then(|i| Method::ALL.get(i).copied())
}

pub fn integrator_description() -> String {
    let codes: Vec<String> = Method::ALL.iter().map(|m| format!("{}={}", method_code(*m), m.name())).collect();
    format!("integration method: {}", codes.join(" "))
}

pub fn constraints_description() -> String {
    let codes: Vec<String> = ConstraintTreatment::ALL.iter().map(|c| format!("{}={}", c.code(), c.name())).collect();
    format!("constraint treatment: {}", codes.join(" "))
}

/// The GUID of a model: a name-based UUID (v5) of the model file text, in braces.
pub fn guid(model_source: &str) -> String {
    let namespace = uuid::Uuid::NAMESPACE_URL;
    let id = uuid::Uuid::new_v5(&namespace, model_source.as_bytes());
    format!("{{{id}}}")
}

/// Everything the FMU exposes about one model.
#[derive(Debug, Clone)]
pub struct Variables {
    pub list: Vec<Variable>,
    pub settings: SolverSettings,
    pub experiment: Experiment,
    /// Whether the model has events (contact onsets and releases, `Simulation::has_events`):
    /// an FMI 3.0 fmi3DoStep may return early at them.
    pub events: bool,
    /// What assembly with the default parameters warned of (`Simulation::warnings`).
    pub warnings: Vec<ModelError>,
    /// Whether an input drives a joint: inputs set in Initialization Mode then move the
    /// initial configuration with the forces and masses (`Workspace::follow_drives`), so the
    /// tunable parameters reach it too.
    pub driven: bool,
}

impl Variables {
    /// The table for export (modelDescription.xml, `flexfmu info`): assembles the model with
    /// its default parameters to learn the outputs and checks that it starts with every
    /// choice of every string parameter (the FMU's parameter may be set to any of them).
    /// A problem of the model file stays a located `SimulationError::Model` (exit code 2).
    pub fn new(model: &Model) -> Result<Variables, SimulationError> {
        let params = model.default_parameters();
        let settings = SolverSettings::from_model(model, &params)?;
        let experiment = Experiment::from_model(model, &params)?;
        let sim = Simulation::new(model, &params, settings, experiment.start_time)?;
        let mut vars = Variables::with_outputs(model, settings, experiment, &sim)?;
        vars.mark_tunable(model);
        for (i, p) in model.parameters.iter().enumerate().filter(|(_, p)| p.kind == ParameterKind::String) {
            for k in 0..p.choices.len() {
                if k as f64 == params[i] {
                    continue;
                }
                let mut other = params.clone();
                other[i] = k as f64;
                let sim = Simulation::new(model, &other, settings, experiment.start_time).map_err(|e| match e {
                    SimulationError::Model(mut e) => {
                        e.message = format!("with {} = \"{}\": {}", p.name, p.choices[k], e.message);
                        SimulationError::Model(e)
                    }
                    e => SimulationError::Settings(format!("with {} = \"{}\": {e}", p.name, p.choices[k])),
                })?;
                // The dependencies hold for every choice: a contact method chosen by a string
                // parameter makes a contact force depend on a load's input with one choice
                // and not with the other (a probe found the default's set declared).
                vars.add_dependencies(&sim);
            }
        }
        Ok(vars)
    }

    /// Mark the tunable model parameters (`Simulation::tunable_parameters`: one assembly per
    /// real parameter). The export does it at once; an FMU instance only when a parameter is
    /// first set in step mode, so that instantiation assembles the model once.
    pub fn mark_tunable(&mut self, model: &Model) {
        let tunable = Simulation::tunable_parameters(model, &model.default_parameters());
        for v in &mut self.list {
            if let Role::Parameter(i) = v.role {
                v.tunable = tunable[i];
            }
        }
    }

    /// The table of `model` with the outputs of its simulation `sim` and their direct
    /// dependencies on the inputs (an FMU instance builds that simulation once and keeps it);
    /// model parameters are not marked tunable yet (`mark_tunable`).
    pub fn with_outputs(
        model: &Model,
        settings: SolverSettings,
        experiment: Experiment,
        sim: &Simulation,
    ) -> Result<Variables, SimulationError> {
        let outputs = sim.outputs();
        let mut dependencies = sim.direct_dependencies();
        let mut list = Vec::new();
        let mut push = |name: String,
                        ty: VarType,
                        role: Role,
                        unit: &str,
                        description: &str,
                        start: Option<f64>,
                        min: Option<f64>,
                        max: Option<f64>| {
            let vr = list.len() as u32;
            list.push(Variable {
                name,
                vr,
                ty,
                role,
                unit: unit.to_string(),
                description: description.to_string(),
                start,
                min,
                max,
                choices: Vec::new(),
                input_dependencies: Vec::new(),
                tunable: matches!(role, Role::Solver(_)),
                configuration: false,
                zero_at_start: false,
                discrete: false,
                initial_inputs: Vec::new(),
                reach: ParameterReach::Everything,
            });
        };
        for (i, p) in model.parameters.iter().enumerate() {
            let ty = match p.kind {
                ParameterKind::Integer => VarType::Integer,
                ParameterKind::Real => VarType::Real,
                ParameterKind::String => VarType::String,
            };
            let description = if p.kind == ParameterKind::String {
                let sep = if p.description.is_empty() { "" } else { " " };
                format!("{}{sep}(one of: {})", p.description, p.choices.join(", "))
            } else {
                p.description.clone()
            };
            push(p.name.clone(), ty, Role::Parameter(i), &p.unit, &description, Some(p.default), p.min, p.max);
        }
        let desc = integrator_description();
        push(
            "solver_integrator".into(),
            VarType::Integer,
            Role::Solver(SolverField::Integrator),
            "",
            &desc,
            Some(method_code(settings.method) as f64),
            Some(0.0),
            Some((Method::ALL.len() - 1) as f64),
        );
        push(
            "solver_rho_inf".into(),
            VarType::Real,
            Role::Solver(SolverField::RhoInf),
            DIMENSIONLESS,
            "spectral radius at infinity of the integrator",
            Some(settings.rho_inf),
            Some(0.0),
            Some(1.0),
        );
        push(
            "solver_step".into(),
            VarType::Real,
            Role::Solver(SolverField::Step),
            "s",
            "internal (nominal) integration step",
            Some(settings.step),
            None,
            None,
        );
        push(
            "solver_tolerance".into(),
            VarType::Real,
            Role::Solver(SolverField::Tolerance),
            DIMENSIONLESS,
            "relative Newton tolerance",
            Some(settings.tolerance),
            None,
            None,
        );
        let desc = constraints_description();
        let last = (ConstraintTreatment::ALL.len() - 1) as f64;
        push(
            "solver_constraints".into(),
            VarType::Integer,
            Role::Solver(SolverField::Constraints),
            "",
            &desc,
            Some(settings.constraints.code() as f64),
            Some(0.0),
            Some(last),
        );
        push(
            "solver_baumgarte_alpha".into(),
            VarType::Real,
            Role::Solver(SolverField::BaumgarteAlpha),
            "1/s",
            "Baumgarte velocity feedback alpha (2 alpha dPhi/dt)",
            Some(settings.baumgarte.alpha),
            Some(0.0),
            None,
        );
        push(
            "solver_baumgarte_beta".into(),
            VarType::Real,
            Role::Solver(SolverField::BaumgarteBeta),
            "1/s",
            "Baumgarte position feedback beta (beta^2 Phi)",
            Some(settings.baumgarte.beta),
            Some(0.0),
            None,
        );
        let ec = &settings.error_control;
        push(
            "solver_error_control".into(),
            VarType::Integer,
            Role::Solver(SolverField::ErrorControl),
            "",
            "1 = error-controlled internal steps (solver_step is the first step), 0 = fixed steps",
            Some(f64::from(u8::from(ec.enabled))),
            Some(0.0),
            Some(1.0),
        );
        push(
            "solver_rtol".into(),
            VarType::Real,
            Role::Solver(SolverField::Rtol),
            DIMENSIONLESS,
            "relative tolerance of the error-controlled step (also set by fmi2SetupExperiment's tolerance)",
            Some(ec.rtol),
            Some(0.0),
            Some(1.0),
        );
        push(
            "solver_atol".into(),
            VarType::Real,
            Role::Solver(SolverField::Atol),
            DIMENSIONLESS,
            "absolute tolerance of the error-controlled step",
            Some(ec.atol),
            Some(0.0),
            Some(1.0),
        );
        for (i, input) in model.definition.inputs.iter().enumerate() {
            push(
                input.name.get_ref().clone(),
                VarType::Real,
                Role::Input(i),
                &input.unit,
                &input.description,
                Some(input.start.0),
                None,
                None,
            );
        }
        for (i, o) in outputs.iter().enumerate() {
            let unit = if o.unit.is_empty() { DIMENSIONLESS } else { &o.unit };
            push(o.name.clone(), VarType::Real, Role::Output(i), unit, &o.description, None, None, None);
        }
        for ((v, p), reach) in list.iter_mut().zip(&model.parameters).zip(model.parameter_reach()) {
            v.choices = p.choices.clone();
            v.reach = reach;
        }
        let configuration = sim.configuration_outputs();
        let mut initial_inputs = sim.initial_input_dependencies();
        for v in &mut list {
            if let Role::Output(i) = v.role {
                v.input_dependencies = std::mem::take(&mut dependencies[i]);
                v.initial_inputs = std::mem::take(&mut initial_inputs[i]);
                v.configuration = configuration[i];
                v.zero_at_start = outputs[i].kind.zero_at_start();
                v.discrete = outputs[i].kind.is_discrete();
            }
        }
        let driven = (0..sim.inputs().len()).any(|i| sim.input_drives_a_joint(i));
        let mut seen = std::collections::HashSet::new();
        for v in &list {
            if !seen.insert(v.name.as_str()) {
                // Located at the name's last mention: the later declaration repeats it.
                let quoted = format!("\"{}\"", v.name);
                let at = model.source.rfind(&quoted).or_else(|| model.source.rfind(&v.name)).unwrap_or(0);
                let message = format!(
                    "variable name '{}' is used twice (parameters, solver_*, inputs and outputs share one namespace)",
                    v.name
                );
                return Err(model.error(at..at, message).into());
            }
        }
        Ok(Variables {
            list,
            settings,
            experiment,
            events: sim.has_events(),
            warnings: sim.warnings().to_vec(),
            driven,
        })
    }

    /// Add the outputs' direct and initial input dependencies of `sim` (the model with other
    /// parameter values) to the table's.
    fn add_dependencies(&mut self, sim: &Simulation) {
        let dependencies = sim.direct_dependencies();
        let initial = sim.initial_input_dependencies();
        self.driven |= (0..sim.inputs().len()).any(|i| sim.input_drives_a_joint(i));
        for v in &mut self.list {
            let Role::Output(k) = v.role else { continue };
            for (list, add) in [
                (&mut v.input_dependencies, dependencies.get(k).map_or(&[][..], Vec::as_slice)),
                (&mut v.initial_inputs, initial.get(k).map_or(&[][..], Vec::as_slice)),
            ] {
                for &d in add {
                    if !list.contains(&d) {
                        list.push(d);
                    }
                }
                list.sort_unstable();
            }
        }
    }

    pub fn get(&self, vr: u32) -> Option<&Variable> {
        self.list.get(vr as usize)
    }

    /// The name of the variable of solver setting `field` (solver_*).
    pub fn solver_name(&self, field: SolverField) -> &str {
        self.list.iter().find(|v| v.role == Role::Solver(field)).map_or("solver setting", |v| &v.name)
    }

    pub fn outputs(&self) -> impl Iterator<Item = &Variable> {
        self.list.iter().filter(|v| matches!(v.role, Role::Output(_)))
    }

    /// The knowns output `v` depends on in Initialization Mode (FMI 2.0.5 sec. 2.2.8 and
    /// FMI 3.0.1 sec. 2.4.8, `<InitialUnknowns>`: inputs, variables with initial = "exact",
    /// the independent variable), as value references, ascending:
    /// - none for an output that is 0 at the start (`zero_at_start`: the energy dissipated
    ///   and supplied);
    /// - the inputs it depends on directly at any communication point (`input_dependencies`)
    ///   and those that move its initial value (`initial_inputs`);
    /// - the model parameters whose value can reach it (`reach`): none that no text mentions;
    ///   for an output of the configuration alone (`configuration`) none that only initial
    ///   velocities read, and no tunable one unless an input drives a joint (`driven`): the
    ///   initial configuration is assembled from the parameters, a tunable one leaves it and
    ///   the geometry unchanged (`Simulation::tunable_parameters`), but a driving input set
    ///   then moves it with the forces and masses (`Workspace::follow_drives`);
    /// - no solver setting (`solver_*`): the initial state (assembly, consistent accelerations
    ///   and multipliers, contact events at the start, the drives followed) never reads them.
    ///
    /// The independent variable is not listed (FMI 2 has none in the table, and then every
    /// unknown is assumed to depend on it). Call after `mark_tunable` (done by
    /// `Variables::new`); before it every parameter counts as fixed, which only adds knowns.
    pub fn initial_dependencies(&self, v: &Variable) -> Vec<u32> {
        self.initial_knowns().of(v)
    }

    /// What `initial_dependencies` draws on, gathered once for all outputs (per output it
    /// went through the whole table: building an FMU of 100,000 outputs took 30 s, a probe).
    pub fn initial_knowns(&self) -> InitialKnowns {
        let parameters = |reaches: &dyn Fn(&Variable) -> bool| -> Vec<u32> {
            self.list.iter().filter(|w| matches!(w.role, Role::Parameter(_)) && reaches(w)).map(|w| w.vr).collect()
        };
        InitialKnowns {
            inputs: self.list.iter().filter(|w| matches!(w.role, Role::Input(_))).map(|w| w.vr).collect(),
            configuration: parameters(&|w| w.reach == ParameterReach::Everything && (self.driven || !w.tunable)),
            motion: parameters(&|w| w.reach != ParameterReach::Nothing),
        }
    }
}

/// The value references `Variables::initial_dependencies` chooses from: the inputs, and the
/// parameters that reach an output of the configuration alone resp. of the motion.
pub struct InitialKnowns {
    inputs: Vec<u32>,
    configuration: Vec<u32>,
    motion: Vec<u32>,
}

impl InitialKnowns {
    /// `Variables::initial_dependencies` of output `v`.
    pub fn of(&self, v: &Variable) -> Vec<u32> {
        if v.zero_at_start {
            return Vec::new();
        }
        let mut known: Vec<u32> = v.input_dependencies.iter().map(|&i| self.inputs[i]).collect();
        known.extend(v.initial_inputs.iter().map(|&i| self.inputs[i]));
        known.extend(if v.configuration { &self.configuration } else { &self.motion });
        known.sort_unstable();
        known.dedup();
        known
    }
}
