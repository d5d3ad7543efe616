//! Model files: parsing, parameters, and errors that point at file:line:column.

mod chunks;
mod drive;
pub mod expr;
mod number;
mod plain_number;
pub mod schema;
pub mod xml_text;

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use crate::compact_number::Compact;
use crate::limits::{MAX_ELEMENTS, MAX_MODEL_NAME_LENGTH};
use expr::{Expr, Symbol};
pub use schema::Definition;
use schema::{Number, ParameterDecl};
use toml::Value;

/// A problem in a model file, located at a byte range of its text.
#[derive(Debug, Clone, thiserror::Error)]
pub struct ModelError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl ModelError {
    /// The message as a located warning: "file:line:column: warning: message".
    pub fn warning(&self) -> String {
        format!("{}:{}:{}: warning: {}", self.file, self.line, self.column, self.shown())
    }

    /// The message, its middle left out beyond SHOWN_MESSAGE bytes: messages quote what the
    /// file says, and a probe's 1 MB name was printed whole.
    fn shown(&self) -> std::borrow::Cow<'_, str> {
        const SHOWN_MESSAGE: usize = 2000;
        let m = &self.message;
        if m.len() <= SHOWN_MESSAGE {
            return m.into();
        }
        let head = (0..=SHOWN_MESSAGE / 2).rev().find(|&i| m.is_char_boundary(i)).unwrap_or(0);
        let tail = (m.len() - SHOWN_MESSAGE / 2..=m.len()).find(|&i| m.is_char_boundary(i)).unwrap_or(m.len());
        format!("{} [... {} bytes left out ...] {}", &m[..head], tail - head, &m[tail..]).into()
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.shown())
    }
}

/// Whether `x` lies in the range of an FMI Integer (32 bits, xs:int).
fn within_i32(x: f64) -> bool {
    (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&x)
}

/// The value type of a model parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterKind {
    Real,
    Integer,
    /// One of `choices`; its value (in parameter vectors) is the index of the choice.
    String,
}

/// What of the initial state a parameter's value can reach (`Model::parameter_reach`), in
/// increasing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ParameterReach {
    /// Not mentioned: it changes nothing.
    Nothing,
    /// Only initial velocities: not the initial configuration.
    Velocities,
    Everything,
}

#[derive(Debug, Clone)]
pub struct Parameter {
    pub name: String,
    pub default: f64,
    pub kind: ParameterKind,
    pub unit: String,
    pub description: String,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// The allowed values of a string parameter (empty otherwise).
    pub choices: Vec<String>,
    span: Range<usize>,
    /// Where its name is declared (its key in `[parameters]`).
    name_span: Range<usize>,
}

impl Parameter {
    /// The text of a string parameter's value (an index into `choices`).
    pub fn choice(&self, value: f64) -> Option<&str> {
        (value >= 0.0 && value.fract() == 0.0)
            .then_some(())
            .and_then(|_| self.choices.get(value as usize))
            .map(String::as_str)
    }

    /// The index of `text` among the choices of a string parameter.
    pub fn choice_index(&self, text: &str) -> Option<f64> {
        self.choices.iter().position(|c| c == text).map(|i| i as f64)
    }
}

/// A parsed model file: its text (for error locations and the FMU's resources), its
/// definition, and the declared parameters in file order.
#[derive(Debug, Clone)]
pub struct Model {
    pub file: String,
    pub source: String,
    pub definition: Definition,
    pub parameters: Vec<Parameter>,
    /// Each parameter's position in `parameters` by name: expressions look their names up
    /// here, so a file of n parameters resolves in time ~ n (a search of the list made 25,000
    /// parameters take seconds).
    index: HashMap<String, usize>,
}

impl Model {
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        let file = path.display().to_string();
        let source = crate::limits::read_text_bounded(path, crate::limits::MAX_MODEL_FILE_BYTES, "model file")
            .map_err(|message| ModelError { file: file.clone(), line: 1, column: 1, message })?;
        Model::from_text(source, &file)
    }

    /// Parse model text; `file` names it in error messages.
    pub fn parse(source: &str, file: &str) -> Result<Model, ModelError> {
        Model::from_text(source.to_string(), file)
    }

    /// Parse model text that the model then keeps (a loaded file's text, without a copy).
    fn from_text(text: String, file: &str) -> Result<Model, ModelError> {
        let source = text.as_str();
        let locate = |span: Option<Range<usize>>, message: String| {
            let (line, column) = line_column(source, span.map_or(0, |s| s.start));
            ModelError { file: file.to_string(), line, column, message }
        };
        let definition = parse_definition(source).map_err(|e| {
            let msg = e.message().trim_end().to_string();
            let hint = e.span().and_then(|s| table_form_hint(source, s.start, &msg)).unwrap_or_default();
            let msg = in_model_words(&msg);
            // toml says "duplicate key" without the key (a probe): it is the one written there.
            let msg = match e.span().and_then(|s| source.get(s)) {
                Some(key) if msg == "duplicate key" && !key.trim().is_empty() => {
                    format!("duplicate key '{}'", key.trim())
                }
                _ => msg,
            };
            locate(e.span(), msg + &hint)
        })?;
        if let Some((span, c)) = xml_text::first_non_xml_text(source) {
            return Err(locate(
                Some(span),
                format!(
                    "this text holds the control character U+{:04X}, which modelDescription.xml (XML 1.0) cannot carry",
                    u32::from(c)
                ),
            ));
        }
        let mut model =
            Model { file: file.to_string(), source: text, definition, parameters: Vec::new(), index: HashMap::new() };
        let name = model.definition.model.name.clone();
        if !is_identifier(name.get_ref()) {
            return Err(model.error(
                name.span(),
                format!(
                    "model name '{}' must be a C identifier (letters, digits, '_'; not starting with a digit)",
                    name.get_ref()
                ),
            ));
        }
        if name.get_ref().len() > MAX_MODEL_NAME_LENGTH {
            return Err(model.error(
                name.span(),
                format!(
                    "model name has {} characters; at most {MAX_MODEL_NAME_LENGTH} fit the FMU's binary file name \
                     (binaries/<platform>/<name>.<so|dll|dylib>, 255 bytes)",
                    name.get_ref().len()
                ),
            ));
        }
        let mut parameters: Vec<Parameter> = Vec::new();
        let mut index = HashMap::new();
        for (key, decl) in &model.definition.parameters.0 {
            let pname = key.get_ref().clone();
            if !is_identifier(&pname) || pname == "t" || pname == "pi" {
                return Err(model.error(
                    key.span(),
                    format!("parameter name '{pname}' must be an identifier other than 't' and 'pi'"),
                ));
            }
            if let Some(message) = reserved_variable_name(&pname) {
                return Err(model.error(key.span(), message));
            }
            let p = Parameter { name_span: key.span(), ..model.parameter(pname, decl)? };
            if index.insert(p.name.clone(), parameters.len()).is_some() {
                return Err(model.error(key.span(), format!("parameter '{}' declared twice", p.name)));
            }
            if !p.default.is_finite() {
                return Err(model.error(p.span.clone(), format!("parameter '{}' must be a finite number", p.name)));
            }
            parameters.push(p);
        }
        model.parameters = parameters;
        model.index = index;
        model.check_variable_names()?;
        let defaults = model.default_parameters();
        model.check_parameters(&defaults)?;
        Ok(model)
    }

    /// Parameters, inputs and outputs are also the FMU's variables, beside its `solver_*`
    /// parameters and FMI 3's `time`: an input or output may not take a parameter's name or a
    /// reserved one (the assemblers check inputs and outputs against each other and the other
    /// names).
    fn check_variable_names(&self) -> Result<(), ModelError> {
        let d = &self.definition;
        for name in d.inputs.iter().map(|i| &i.name).chain(d.outputs.iter().map(|o| &o.name)) {
            let n = name.get_ref();
            if let Some(message) = reserved_variable_name(n) {
                return Err(self.error(name.span(), message));
            }
            if let Some(p) = self.parameter_index(n).map(|i| &self.parameters[i]) {
                let (line, _) = line_column(&self.source, p.span.start);
                return Err(self.error(
                    name.span(),
                    format!(
                        "name '{n}' is the parameter's on line {line}: parameters, inputs and outputs are the FMU's \
                         variables and share one namespace"
                    ),
                ));
            }
        }
        Ok(())
    }

    fn parameter(&self, name: String, decl: &ParameterDecl) -> Result<Parameter, ModelError> {
        let span = decl.span();
        let number = |v: &Value| match v {
            Value::Float(x) => Some(*x),
            Value::Integer(i) => Some(*i as f64),
            _ => None,
        };
        let mut p = Parameter {
            name,
            default: 0.0,
            kind: ParameterKind::Real,
            unit: String::new(),
            description: String::new(),
            min: None,
            max: None,
            choices: Vec::new(),
            span: span.clone(),
            name_span: 0..0,
        };
        match decl.get_ref() {
            Value::Table(table) => {
                let mut value = None;
                let mut text = None;
                let mut typed_string = false;
                let mut choices = None;
                for (key, v) in table {
                    let bad = |what: &str| -> Result<f64, ModelError> {
                        Err(self.error(span.clone(), format!("parameter '{}': `{key}` must be {what}", p.name)))
                    };
                    match (key.as_str(), v) {
                        ("value", Value::String(t)) => text = Some(t.clone()),
                        ("value", v) => value = Some(number(v).map_or_else(|| bad("a number or a string"), Ok)?),
                        ("unit", Value::String(u)) => p.unit = u.clone(),
                        ("description", Value::String(d)) => p.description = d.clone(),
                        ("type", Value::String(t)) if t == "real" => p.kind = ParameterKind::Real,
                        ("type", Value::String(t)) if t == "integer" => p.kind = ParameterKind::Integer,
                        ("type", Value::String(t)) if t == "string" => typed_string = true,
                        ("type", _) => return Err(bad("\"real\", \"integer\" or \"string\"").unwrap_err()),
                        ("min", v) => p.min = Some(number(v).map_or_else(|| bad("a number"), Ok)?),
                        ("max", v) => p.max = Some(number(v).map_or_else(|| bad("a number"), Ok)?),
                        ("choices", Value::Array(items)) => {
                            let list: Option<Vec<String>> =
                                items.iter().map(|i| i.as_str().map(str::to_string)).collect();
                            choices = Some(list.ok_or_else(|| bad("a list of strings").unwrap_err())?);
                        }
                        ("choices", _) => return Err(bad("a list of strings").unwrap_err()),
                        ("unit" | "description", _) => return Err(bad("a string").unwrap_err()),
                        _ => {
                            return Err(self.error(
                                span.clone(),
                                format!("parameter '{}': unknown field `{key}`, expected `value`, `unit`, `description`, `type`, `min`, `max` or `choices`", p.name),
                            ));
                        }
                    }
                }
                // A NaN bound checks nothing and an infinite one is not an xs:double of
                // modelDescription.xml ("inf"): no bound is written by leaving it out.
                if let Some((key, b)) = [("min", p.min), ("max", p.max)]
                    .into_iter()
                    .find_map(|(k, b)| b.filter(|b| !b.is_finite()).map(|b| (k, b)))
                {
                    return Err(self.error(
                        span.clone(),
                        format!(
                            "parameter '{}': `{key}` must be a finite number, got {b} (leave it out for no bound)",
                            p.name
                        ),
                    ));
                }
                if text.is_some() || choices.is_some() || typed_string {
                    // A string parameter: { value = "a", choices = ["a", "b"] }.
                    let fail = |msg: String| Err(self.error(span.clone(), format!("parameter '{}': {msg}", p.name)));
                    let Some(text) = text else {
                        return fail("a string parameter needs a string `value` (one of its `choices`)".into());
                    };
                    let Some(choices) = choices else {
                        return fail(format!(
                            "string value \"{text}\" makes a string parameter, which needs `choices = [\"{text}\", \
                             ...]`, the values it may take; a numeric parameter's value is a number, not an \
                             expression (write expressions such as \"2*L\" where the parameter is used)"
                        ));
                    };
                    if choices.is_empty() || choices.iter().any(|c| c.is_empty()) {
                        return fail("`choices` must be a non-empty list of non-empty strings".into());
                    }
                    if let Some(c) = choices.iter().enumerate().find(|(i, c)| choices[..*i].contains(c)) {
                        return fail(format!("choice \"{}\" is listed twice", c.1));
                    }
                    if p.min.is_some() || p.max.is_some() || !p.unit.is_empty() || p.kind == ParameterKind::Integer {
                        return fail(
                            "`min`, `max`, `unit` and `type = \"integer\"` do not apply to a string parameter".into(),
                        );
                    }
                    let Some(index) = choices.iter().position(|c| *c == text) else {
                        return fail(format!("value \"{text}\" is not one of its choices ({})", choices.join(", ")));
                    };
                    p.kind = ParameterKind::String;
                    p.default = index as f64;
                    p.choices = choices;
                } else {
                    p.default = value
                        .ok_or_else(|| self.error(span.clone(), format!("parameter '{}' needs `value`", p.name)))?;
                }
            }
            v => {
                p.default = number(v).ok_or_else(|| {
                    // "200 N/m": a number with its unit written after it.
                    let unit = v
                        .as_str()
                        .and_then(|t| t.split_once(' '))
                        .filter(|(n, u)| n.parse::<f64>().is_ok() && !u.trim().is_empty())
                        .map(|(n, u)| format!(" (units go apart: {{ value = {n}, unit = \"{}\" }})", u.trim()))
                        .unwrap_or_default();
                    self.error(
                        span.clone(),
                        format!("parameter '{}' must be a number or a table with `value`{unit}", p.name),
                    )
                })?
            }
        }
        if p.kind == ParameterKind::Integer {
            // An FMI Integer is 32 bits (xs:int): a start, min or max beyond it made an FMU
            // that FMPy's validation refuses (a probe's `value = 1e300`).
            for (what, x) in [("value", Some(p.default)), ("min", p.min), ("max", p.max)] {
                // A fractional bound was written to modelDescription.xml as the integer it
                // truncates to, which the FMU then refused (a probe's min = 1.5: n = 1 below it).
                if let Some(x) = x.filter(|&x| x.fract() != 0.0 && within_i32(x)) {
                    return Err(self.error(
                        span.clone(),
                        format!("integer parameter '{}': {what} = {} is not a whole number", p.name, Compact(x)),
                    ));
                }
                if let Some(x) = x.filter(|&x| !within_i32(x)) {
                    return Err(self.error(
                        span.clone(),
                        format!(
                            "integer parameter '{}': {what} = {} is outside the 32-bit range of an FMI Integer \
                             ({} to {})",
                            p.name,
                            Compact(x),
                            i32::MIN,
                            i32::MAX
                        ),
                    ));
                }
            }
        }
        Ok(p)
    }

    pub fn name(&self) -> &str {
        self.definition.model.name.get_ref()
    }

    pub fn default_parameters(&self) -> Vec<f64> {
        self.parameters.iter().map(|p| p.default).collect()
    }

    pub fn parameter_index(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// Check values against the declared type and bounds; the error points at the declaration.
    pub fn check_parameters(&self, values: &[f64]) -> Result<(), ModelError> {
        (0..self.parameters.len().min(values.len())).try_for_each(|i| self.check_parameter(i, values[i]))
    }

    /// Check value `v` of parameter `i` against its type and bounds.
    pub fn check_parameter(&self, i: usize, v: f64) -> Result<(), ModelError> {
        let p = &self.parameters[i];
        let bad = |msg: String| Err(self.error(p.span.clone(), msg));
        if !v.is_finite() {
            return bad(format!("parameter '{}' = {v} is not a finite number", p.name));
        }
        if p.kind == ParameterKind::String {
            if p.choice(v).is_none() {
                return bad(format!("parameter '{}' must be one of {}, got index {v}", p.name, p.choices.join(", ")));
            }
            return Ok(());
        }
        if p.kind == ParameterKind::Integer && (v.fract() != 0.0 || !within_i32(v)) {
            return bad(format!("parameter '{}' is a 32-bit integer, got {}", p.name, Compact(v)));
        }
        if let (Some(lo), Some(hi)) = (p.min, p.max) {
            if lo > hi {
                return bad(format!("parameter '{}' has min = {lo} above its max = {hi}", p.name));
            }
        }
        if let Some(m) = p.min.filter(|&m| v < m) {
            return bad(format!("parameter '{}' = {v} is below its min = {m}", p.name));
        }
        if let Some(m) = p.max.filter(|&m| v > m) {
            return bad(format!("parameter '{}' = {v} is above its max = {m}", p.name));
        }
        Ok(())
    }

    /// For each parameter, whether its name appears in the text anywhere but where it is
    /// declared. Values reach the model only through names in expressions, which are text of
    /// the file, so a parameter that is not mentioned changes nothing when it changes (a
    /// superset of the parameters read: a name in a comment or a description counts too). One
    /// pass over the text: words are the longest runs of the characters names are made of.
    pub fn mentioned_parameters(&self) -> Vec<bool> {
        let mut mentioned = vec![false; self.parameters.len()];
        self.for_each_mention(|i, _| mentioned[i] = true);
        mentioned
    }

    /// For each parameter, what of the initial state its value can reach: `Nothing` if it is
    /// not mentioned (`mentioned_parameters`), `Velocities` if every mention lies in an initial
    /// velocity (`velocity` and `angular_velocity` of point masses, rigid bodies and beams),
    /// which the initial configuration never reads (the positions are projected onto the
    /// joints before the velocities are solved, and drives move the configuration at rest),
    /// else `Everything`. From the text, like `mentioned_parameters`: a mention anywhere else,
    /// even in a comment or another parameter's value, counts as reaching everything.
    pub fn parameter_reach(&self) -> Vec<ParameterReach> {
        let d = &self.definition;
        let mut velocities: Vec<Range<usize>> = Vec::new();
        for b in &d.point_masses {
            velocities.extend(b.velocity.as_ref().map(|v| v.span()));
        }
        for b in &d.rigid_bodies {
            velocities.extend(b.velocity.as_ref().map(|v| v.span()));
            velocities.extend(b.angular_velocity.as_ref().map(|v| v.span()));
        }
        for b in &d.beams {
            velocities.extend(b.velocity.as_ref().map(|v| v.span()));
            velocities.extend(b.angular_velocity.as_ref().map(|v| v.span()));
        }
        velocities.sort_by_key(|r| r.start);
        let in_velocity = |at: usize| {
            let k = velocities.partition_point(|r| r.start <= at);
            k > 0 && at < velocities[k - 1].end
        };
        let mut reach = vec![ParameterReach::Nothing; self.parameters.len()];
        self.for_each_mention(|i, at| {
            let r = if in_velocity(at) { ParameterReach::Velocities } else { ParameterReach::Everything };
            reach[i] = reach[i].max(r);
        });
        reach
    }

    /// For each parameter, whether a joint's `drive` mentions it (from the text, like
    /// `mentioned_parameters`): it prescribes a motion, not a coefficient.
    pub fn drive_parameters(&self) -> Vec<bool> {
        let drives: Vec<Range<usize>> =
            self.definition.joints.iter().filter_map(|j| j.drive.as_ref().map(|d| d.span())).collect();
        let mut driving = vec![false; self.parameters.len()];
        self.for_each_mention(|i, at| {
            if drives.iter().any(|r| r.contains(&at)) {
                driving[i] = true;
            }
        });
        driving
    }

    /// `f(i, at)` for every mention of parameter i at byte `at` outside its declaration; words
    /// are the longest runs of the characters names are made of.
    fn for_each_mention(&self, mut f: impl FnMut(usize, usize)) {
        let bytes = self.source.as_bytes();
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
        let mut start = 0;
        while start < bytes.len() {
            if !word(bytes[start]) {
                start += 1;
                continue;
            }
            let end = start + bytes[start..].iter().take_while(|&&b| word(b)).count();
            if let Some(i) = self.parameter_index(&self.source[start..end]) {
                let declared = &self.parameters[i].name_span;
                if !(declared.start <= start && start < declared.end) {
                    f(i, start);
                }
            }
            start = end;
        }
    }

    /// "file:line:column" of a byte span of the model text, and its text when it is an
    /// expression: `name` of a diagnosis that points into the model (`System::watch`).
    pub fn watch_label(&self, n: &schema::Num, name: String) -> String {
        let (line, column) = line_column(&self.source, n.span().start);
        match n.get_ref() {
            Number::Expr(text) => format!("{}:{line}:{column}: {name} `{text}`", self.file),
            Number::Value(_) => format!("{}:{line}:{column}: {name}", self.file),
        }
    }

    /// An error at a byte span of the model text.
    pub fn error(&self, span: Range<usize>, message: String) -> ModelError {
        let (line, column) = line_column(&self.source, span.start);
        ModelError { file: self.file.clone(), line, column, message }
    }

    /// A scope that resolves parameter names to the given values.
    pub fn scope<'a>(&'a self, values: &'a [f64]) -> Scope<'a> {
        Scope { model: self, values, inputs: &[] }
    }
}

/// Evaluates model numbers with given parameter values (and, for time functions, inputs).
pub struct Scope<'a> {
    pub model: &'a Model,
    values: &'a [f64],
    inputs: &'a [String],
}

impl<'a> Scope<'a> {
    pub fn with_inputs(self, inputs: &'a [String]) -> Scope<'a> {
        Scope { inputs, ..self }
    }

    fn resolve(&self, name: &str, time_allowed: bool) -> Option<Symbol> {
        if let Some(i) = self.model.parameter_index(name) {
            // String parameters have no numeric value (see `text`).
            return (self.model.parameters[i].kind != ParameterKind::String)
                .then_some(Symbol::Constant(self.values[i]));
        }
        if time_allowed {
            if name == "t" {
                return Some(Symbol::Time);
            }
            if let Some(i) = self.inputs.iter().position(|n| n == name) {
                return Some(Symbol::Input(i));
            }
        }
        None
    }

    fn compile(&self, n: &schema::Num, time_allowed: bool) -> Result<Expr, ModelError> {
        match n.get_ref() {
            Number::Value(v) => Ok(Expr::Num(*v)),
            Number::Expr(text) => Expr::parse(text, &|name| self.resolve(name, time_allowed)).map_err(|e| {
                // +1: the span starts at the opening quote.
                let mut span = n.span();
                span.start += 1 + e.offset;
                // Which names may appear, after a name that may not; after a number followed by
                // a word ("4 kg"), that values carry no units.
                let before = text[..e.offset.min(text.len())].trim_end();
                let hint = if e.message.starts_with("unknown name") {
                    if time_allowed {
                        " (parameters, inputs and t may appear here)"
                    } else {
                        " (only parameters may appear here; the time t and inputs only in load values, drives and \
                         free lengths)"
                    }
                } else if e.message.starts_with("unexpected '")
                    && text[e.offset.min(text.len())..].starts_with(|c: char| c.is_alphabetic())
                    && before.ends_with(|c: char| c.is_ascii_digit() || c == '.')
                {
                    " (values are numbers in SI units, written without a unit name)"
                } else {
                    ""
                };
                let string = self
                    .model
                    .parameters
                    .iter()
                    .find(|p| p.kind == ParameterKind::String && e.message == format!("unknown name '{}'", p.name));
                match string {
                    Some(p) => self.model.error(
                        span,
                        format!(
                            "'{}' is a string parameter ({}); use it in a text field as \"${}\"",
                            p.name,
                            p.choices.join(", "),
                            p.name
                        ),
                    ),
                    None => self.model.error(span, format!("{}{hint}", e.message)),
                }
            }),
        }
    }

    /// A constant number: a literal or an expression over parameters.
    pub fn number(&self, n: &schema::Num) -> Result<f64, ModelError> {
        let v = self.compile(n, false)?.constant().expect("expressions over parameters fold to constants");
        if !v.is_finite() {
            return Err(self.model.error(n.span(), format!("evaluates to {v}, expected a finite number")));
        }
        Ok(v)
    }

    /// A text field: a literal, or `"$name"`, the current value of the string parameter
    /// `name` (the span stays the field's, so later errors point at it).
    pub fn text(&self, field: &schema::Name) -> Result<schema::Name, ModelError> {
        let Some(name) = field.get_ref().strip_prefix('$') else { return Ok(field.clone()) };
        let p = self
            .model
            .parameter_index(name)
            .map(|i| (&self.model.parameters[i], self.values[i]))
            .filter(|(p, _)| p.kind == ParameterKind::String);
        let Some((p, v)) = p else {
            let strings: Vec<&str> = self
                .model
                .parameters
                .iter()
                .filter(|p| p.kind == ParameterKind::String)
                .map(|p| p.name.as_str())
                .collect();
            let known = if strings.is_empty() { "none declared".to_string() } else { strings.join(", ") };
            return Err(self
                .model
                .error(field.span(), format!("'${name}' names no string parameter (string parameters: {known})")));
        };
        let value = p
            .choice(v)
            .ok_or_else(|| self.model.error(field.span(), format!("parameter '{name}' has no valid choice")))?;
        Ok(toml::Spanned::new(field.span(), value.to_string()))
    }

    /// A body name with its indices evaluated: `bar.node[n/5]`, `plate.body[i][j + 1]` become
    /// `bar.node[2]`, ... with the parameters' values, so a point of a beam or plate stays where
    /// it is when a parameter refines the mesh. Literal indices are kept as written; an index
    /// must evaluate to an integer >= 0 (the error says so, with its value).
    pub fn indexed_name<'n>(&self, name: &'n str) -> Result<std::borrow::Cow<'n, str>, String> {
        let plain = |inner: &str| !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit());
        let mut groups = name.split('[').skip(1).map(|g| g.split(']').next().unwrap_or(""));
        if groups.all(plain) {
            return Ok(std::borrow::Cow::Borrowed(name));
        }
        let mut out = String::with_capacity(name.len());
        let mut rest = name;
        while let Some(open) = rest.find('[') {
            let Some(close) = rest[open..].find(']').map(|c| open + c) else {
                return Err(format!("'{name}': '[' without ']'"));
            };
            out.push_str(&rest[..=open]);
            let inner = &rest[open + 1..close];
            if plain(inner) {
                out.push_str(inner);
            } else {
                let expr = Expr::parse(inner, &|n| self.resolve(n, false))
                    .map_err(|e| format!("index '{inner}' of '{name}': {}", e.message))?;
                let v = expr.constant().expect("expressions over parameters fold to constants");
                if !(v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= MAX_ELEMENTS) {
                    return Err(format!(
                        "index '{inner}' of '{name}' evaluates to {}, expected an integer >= 0",
                        Compact(v)
                    ));
                }
                out.push_str(&(v as usize).to_string());
            }
            rest = &rest[close..];
        }
        out.push_str(rest);
        Ok(std::borrow::Cow::Owned(out))
    }

    /// A constant that must be > 0 (masses, lengths, steps).
    pub fn positive(&self, n: &schema::Num, what: &str) -> Result<f64, ModelError> {
        let v = self.number(n)?;
        if v <= 0.0 {
            return Err(self.model.error(n.span(), format!("{what} must be positive, got {}", Compact(v))));
        }
        // A subnormal one's reciprocal overflows: a mass of 5e-324 had been "an acceleration
        // evaluated to NaN or infinity" at t = 0, without a location (a probe).
        if v < f64::MIN_POSITIVE {
            return Err(self.model.error(
                n.span(),
                format!(
                    "{what} {} is below 2.2e-308, the smallest normal double: its reciprocal overflows",
                    Compact(v)
                ),
            ));
        }
        Ok(v)
    }

    /// A number of elements: an integer in 1..=MAX_ELEMENTS.
    pub fn element_count(&self, n: &schema::Num) -> Result<usize, ModelError> {
        let count = self.number(n)?;
        if count < 1.0 || count.fract() != 0.0 || count > MAX_ELEMENTS {
            return Err(self.model.error(
                n.span(),
                format!("elements must be an integer >= 1 and at most {MAX_ELEMENTS:e}, got {}", Compact(count)),
            ));
        }
        Ok(count as usize)
    }

    /// A constant that must be >= 0 (damping, stiffness).
    pub fn non_negative(&self, n: &schema::Num, what: &str) -> Result<f64, ModelError> {
        let v = self.number(n)?;
        if v < 0.0 {
            return Err(self.model.error(n.span(), format!("{what} must not be negative, got {}", Compact(v))));
        }
        Ok(v)
    }

    /// A time function: expression in parameters, `t` and inputs; `what` names its key in
    /// errors ("load value"). One without time and inputs is a number, which must be finite:
    /// a NaN load (`"0/0"`) otherwise reached the solver as a singular Newton matrix.
    pub fn time_function(&self, n: &schema::Num, what: &str) -> Result<Expr, ModelError> {
        let f = self.compile(n, true)?;
        if let Some(v) = f.constant().filter(|v| !v.is_finite()) {
            let message = match n.get_ref() {
                Number::Expr(text) => format!("{what} must be finite: {text} = {v}"),
                Number::Value(_) => format!("{what} must be finite, got {v}"),
            };
            return Err(self.model.error(n.span(), message));
        }
        Ok(f)
    }

    pub fn vec2(&self, v: &schema::Vec2) -> Result<[f64; 2], ModelError> {
        self.vector::<2>(v)
    }

    pub fn vec3(&self, v: &schema::Vec2) -> Result<[f64; 3], ModelError> {
        self.vector::<3>(v)
    }

    /// A list of exactly N numbers.
    pub fn vector<const N: usize>(&self, v: &schema::Vec2) -> Result<[f64; N], ModelError> {
        let span = v.span();
        if v.get_ref().len() != N {
            let what = ["", "[x]", "[x, y]", "[x, y, z]", "[e0, e1, e2, e3]"].get(N).copied().unwrap_or("");
            return Err(self.model.error(span, format!("expected {N} numbers {what}, got {}", v.get_ref().len())));
        }
        let mut out = [0.0; N];
        for (o, x) in out.iter_mut().zip(v.get_ref()) {
            *o = self.number(&toml::Spanned::new(span.clone(), x.clone()))?;
        }
        Ok(out)
    }

    /// The scalar form of a number-or-list entry (2D inertia, angular velocity).
    pub fn scalar(&self, t: &toml::Spanned<schema::Tensor>, what: &str) -> Result<f64, ModelError> {
        match t.get_ref() {
            schema::Tensor::Scalar(n) => self.number(&toml::Spanned::new(t.span(), n.clone())),
            _ => Err(self.model.error(t.span(), format!("{what}: expected a number in a planar model"))),
        }
    }

    /// The vector form of a number-or-list entry (3D angular velocity): [x, y, z].
    pub fn vector3(&self, t: &toml::Spanned<schema::Tensor>, what: &str) -> Result<[f64; 3], ModelError> {
        match t.get_ref() {
            schema::Tensor::Vector(v) => self.vec3(&toml::Spanned::new(t.span(), v.clone())),
            _ => Err(self.model.error(t.span(), format!("in a spatial model, {what} is a vector [x, y, z]"))),
        }
    }
}

/// The model text's definition: a large text in pieces (src/model/chunks.rs), or whole when
/// that cannot be done or fails (so that any error is the whole text's).
fn parse_definition(source: &str) -> Result<Definition, toml::de::Error> {
    if source.len() >= 2 * chunks::PIECE {
        if let Some(definition) = chunks::parse_in_pieces(source, chunks::PIECE) {
            return Ok(definition);
        }
    }
    toml::from_str(source)
}

/// For a section written in the other TOML table form (`[inputs]` for the list `[[inputs]]`,
/// or `[[solver]]` for the one table `[solver]`), what to write instead; the TOML parser only
/// says which type it expected.
fn table_form_hint(source: &str, at: usize, message: &str) -> Option<String> {
    let line = source.get(at..)?.lines().next()?.trim();
    if let Some(name) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
        let single = ["model", "parameters", "solver"].contains(&name) && message.starts_with("invalid type");
        return single.then(|| format!(" (`[{name}]` is one table: write `[{name}]` once, not `[[{name}]]`)"));
    }
    let name = line.strip_prefix('[').and_then(|l| l.strip_suffix(']'))?;
    message
        .contains("expected a sequence")
        .then(|| format!(" (`{name}` is a list of tables: write each entry as `[[{name}]]` with its keys below it)"))
}

/// serde's "invalid type: GOT, expected WANT" in the model file's words: "expected WANT, got
/// GOT", with TOML's names for the kinds of values (a probe read "invalid type: map, expected a
/// sequence" and "invalid type: string \"false\", expected a boolean"). Other messages as they
/// are.
fn in_model_words(message: &str) -> String {
    let Some((got, want)) = message.strip_prefix("invalid type: ").and_then(|m| m.split_once(", expected ")) else {
        return message.to_string();
    };
    let want = match want {
        "a boolean" => "true or false (without quotes)",
        "a string" => "a string in quotes",
        "a sequence" => "a list in brackets, [...]",
        "a map" | "struct" => "a table",
        "i64" | "u32" | "u64" | "usize" | "i32" => "an integer",
        "f64" => "a number",
        other => other,
    };
    // The value's kind and, where serde quotes it, the value (`5` -> 5).
    let (kind, value) = got.split_once(' ').unwrap_or((got, ""));
    let value = value.trim_matches('`');
    let got = match kind {
        "string" => format!("the string {value}"),
        "integer" => format!("the integer {value}"),
        "floating" => format!("the number {}", value.trim_start_matches("point ").trim_matches('`')),
        "boolean" => value.to_string(),
        "map" => "a table".to_string(),
        "sequence" => "a list".to_string(),
        _ => got.to_string(),
    };
    format!("expected {want}, got {got}")
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The prefix of the FMU's solver parameters (`solver_step`, ...), reserved in model files.
const SOLVER_PREFIX: &str = "solver_";

/// The variable the FMI 3.0 modelDescription.xml declares for the independent variable
/// (`export::model_description3`); FMI 2.0 declares none, but one model builds both.
pub const TIME_VARIABLE: &str = "time";

/// Why `name` cannot be an FMU variable of the model's (a parameter, input or output): the
/// names the exported modelDescription.xml gives its own variables, which must be unique.
fn reserved_variable_name(name: &str) -> Option<String> {
    if name.starts_with(SOLVER_PREFIX) {
        return Some(format!(
            "name '{name}': names starting with '{SOLVER_PREFIX}' are reserved for the FMU's solver parameters"
        ));
    }
    (name == TIME_VARIABLE).then(|| {
        format!(
            "name '{name}' is reserved: it is the FMU's independent variable (FMI 3.0 declares it beside the model's \
             variables); choose another name"
        )
    })
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
