//! Arithmetic expressions in model files: `"m*L^2/12"`, `"P0*sin(w*t)"`.
//!
//! Grammar: numbers, names (parameters, inputs, `t`, `pi`), `+ - * / ^`, unary minus,
//! parentheses and the functions `sin cos tan asin acos atan atan2(y, x) exp ln sqrt abs min max`. Names are resolved
//! once when the expression is compiled, so evaluating it in the solver's hot loop is a
//! walk over a small tree with no lookups. The tree is at most `MAX_EXPRESSION_DEPTH` deep
//! (src/limits.rs), which bounds the stack of every recursive walk over it. A chain of `+ -`
//! or of `* /` is one node holding its operands in order (`Chain`), walked in a loop: a sum
//! of any length is as deep as its deepest term, and evaluates in the order, and to the bits,
//! of the left-leaning tree it stands for.

use std::fmt;

use crate::limits::MAX_EXPRESSION_DEPTH;

/// What a name in an expression refers to after compilation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Symbol {
    Constant(f64),
    Time,
    Input(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(f64),
    Time,
    Input(usize),
    Neg(Box<Expr>),
    /// `^` (`a^b`).
    Bin(Op, Box<Expr>, Box<Expr>),
    /// `first op1 x1 op2 x2 ...`, applied from the left: one chain of `+ -` or of `* /`.
    Chain(Box<Expr>, Vec<(Op, Expr)>),
    Call(Func, Vec<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

impl Op {
    /// `a op b`.
    fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / b,
            Op::Pow => a.powf(b),
        }
    }

    /// `a op b` with its derivative from those of a and b (dual numbers).
    fn apply_dual(self, (a, da): (f64, f64), (b, db): (f64, f64)) -> (f64, f64) {
        match self {
            Op::Add => (a + b, da + db),
            Op::Sub => (a - b, da - db),
            Op::Mul => (a * b, da * b + a * db),
            Op::Div => (a / b, (da * b - a * db) / (b * b)),
            Op::Pow => {
                let p = a.powf(b);
                // d(a^b) = b a^(b-1) da + a^b ln(a) db (the second term only if b varies).
                let from_b = if db != 0.0 { p * a.ln() * db } else { 0.0 };
                let from_a = if da != 0.0 { b * a.powf(b - 1.0) * da } else { 0.0 };
                (p, from_a + from_b)
            }
        }
    }

    /// `a op b` of time jets [value, rate, acceleration] (`Expr::eval_time_jet`).
    fn apply_jet(self, a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        match self {
            Op::Add => [a[0] + b[0], a[1] + b[1], a[2] + b[2]],
            Op::Sub => [a[0] - b[0], a[1] - b[1], a[2] - b[2]],
            Op::Mul => jet_mul(a, b),
            Op::Div => {
                // q = a/b: q' = (a' - q b')/b, q'' = (a'' - 2 q' b' - q b'')/b.
                let q = a[0] / b[0];
                let q1 = (a[1] - q * b[1]) / b[0];
                [q, q1, (a[2] - 2.0 * q1 * b[1] - q * b[2]) / b[0]]
            }
            Op::Pow if b[1] == 0.0 && b[2] == 0.0 => {
                // x^c: c x^(c-1), c (c-1) x^(c-2); zero coefficients skip the powers
                // (finite at x = 0 for c = 1, 2).
                let c = b[0];
                let f1 = if c != 0.0 { c * a[0].powf(c - 1.0) } else { 0.0 };
                let f2 = if c * (c - 1.0) != 0.0 { c * (c - 1.0) * a[0].powf(c - 2.0) } else { 0.0 };
                jet_chain(a, a[0].powf(c), f1, f2)
            }
            Op::Pow => {
                // a^b = exp(b ln a).
                let ln = jet_chain(a, a[0].ln(), 1.0 / a[0], -1.0 / (a[0] * a[0]));
                let e = jet_mul(b, ln);
                let p = a[0].powf(b[0]);
                jet_chain(e, p, p, p)
            }
        }
    }
}

/// f(x) of a jet x with f'(x), f''(x): (f, f' x', f'' x'^2 + f' x'').
fn jet_chain([_, dx, ddx]: [f64; 3], f: f64, f1: f64, f2: f64) -> [f64; 3] {
    [f, f1 * dx, f2 * dx * dx + f1 * ddx]
}

/// The product of two jets.
fn jet_mul([a, da, dda]: [f64; 3], [b, db, ddb]: [f64; 3]) -> [f64; 3] {
    [a * b, da * b + a * db, dda * b + 2.0 * da * db + a * ddb]
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Func {
    Sin,
    Cos,
    Tan,
    Exp,
    Ln,
    Sqrt,
    Abs,
    Asin,
    Acos,
    Atan,
    Atan2,
    Min,
    Max,
}

impl Func {
    /// The names `parse` knows, for messages.
    const NAMES: &'static str = "sin, cos, tan, exp, ln, sqrt, abs, asin, acos, atan, atan2, min, max";

    fn parse(name: &str) -> Option<(Func, usize)> {
        Some(match name {
            "sin" => (Func::Sin, 1),
            "cos" => (Func::Cos, 1),
            "tan" => (Func::Tan, 1),
            "exp" => (Func::Exp, 1),
            "ln" => (Func::Ln, 1),
            "sqrt" => (Func::Sqrt, 1),
            "abs" => (Func::Abs, 1),
            "asin" => (Func::Asin, 1),
            "acos" => (Func::Acos, 1),
            "atan" => (Func::Atan, 1),
            "atan2" => (Func::Atan2, 2),
            "min" => (Func::Min, 2),
            "max" => (Func::Max, 2),
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    /// Byte offset inside the expression text.
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at character {})", self.message, self.offset + 1)
    }
}

impl Expr {
    /// Compile `text`, resolving names with `resolve` (None: unknown name).
    pub fn parse(text: &str, resolve: &dyn Fn(&str) -> Option<Symbol>) -> Result<Expr, ExprError> {
        let mut p = Parser { s: text.as_bytes(), pos: 0, resolve, nesting: 0 };
        let (e, _) = p.sum()?;
        p.skip_ws();
        if p.pos != p.s.len() {
            return Err(p.error(format!("unexpected '{}'", p.s[p.pos] as char)));
        }
        Ok(e.folded())
    }

    /// Value at time `t` with input values `inputs`.
    pub fn eval(&self, t: f64, inputs: &[f64]) -> f64 {
        self.eval_by(t, &|i| inputs[i])
    }

    /// Value at time `t` with each input the quadratic of `rates` about its time, `inputs`
    /// its values there (held where its rates are zero): what an element reads of inputs
    /// interpolated over a communication step (fmi2SetRealInputDerivatives), at its own
    /// stage time.
    pub fn eval_interpolated(&self, t: f64, inputs: &[f64], rates: &InputRates) -> f64 {
        if rates.rates.is_empty() {
            return self.eval(t, inputs);
        }
        self.eval_by(t, &|j| rates.jet(j, inputs[j], t)[0])
    }

    /// Value at time `t`, input j's value `input(j)`.
    fn eval_by(&self, t: f64, input: &dyn Fn(usize) -> f64) -> f64 {
        match self {
            Expr::Num(v) => *v,
            Expr::Time => t,
            Expr::Input(i) => input(*i),
            Expr::Neg(a) => -a.eval_by(t, input),
            Expr::Bin(op, a, b) => op.apply(a.eval_by(t, input), b.eval_by(t, input)),
            Expr::Chain(first, rest) => {
                rest.iter().fold(first.eval_by(t, input), |acc, (op, b)| op.apply(acc, b.eval_by(t, input)))
            }
            Expr::Call(f, args) => {
                let x = args[0].eval_by(t, input);
                match f {
                    Func::Sin => x.sin(),
                    Func::Cos => x.cos(),
                    Func::Tan => x.tan(),
                    Func::Exp => x.exp(),
                    Func::Ln => x.ln(),
                    Func::Sqrt => x.sqrt(),
                    Func::Abs => x.abs(),
                    Func::Asin => x.asin(),
                    Func::Acos => x.acos(),
                    Func::Atan => x.atan(),
                    Func::Atan2 => x.atan2(args[1].eval_by(t, input)),
                    Func::Min => x.min(args[1].eval_by(t, input)),
                    Func::Max => x.max(args[1].eval_by(t, input)),
                }
            }
        }
    }

    /// Value and derivative with respect to input `i` at (t, inputs): forward-mode
    /// differentiation (dual numbers). Where the derivative is undefined (|x| at 0, a kink of
    /// min/max) the side of the branch `eval` takes is used.
    pub fn eval_with_input_derivative(&self, t: f64, inputs: &[f64], i: usize) -> (f64, f64) {
        match self {
            Expr::Num(v) => (*v, 0.0),
            Expr::Time => (t, 0.0),
            Expr::Input(j) => (inputs[*j], if *j == i { 1.0 } else { 0.0 }),
            Expr::Neg(a) => {
                let (x, dx) = a.eval_with_input_derivative(t, inputs, i);
                (-x, -dx)
            }
            Expr::Bin(op, a, b) => {
                op.apply_dual(a.eval_with_input_derivative(t, inputs, i), b.eval_with_input_derivative(t, inputs, i))
            }
            Expr::Chain(first, rest) => {
                rest.iter().fold(first.eval_with_input_derivative(t, inputs, i), |acc, (op, b)| {
                    op.apply_dual(acc, b.eval_with_input_derivative(t, inputs, i))
                })
            }
            Expr::Call(f, args) => {
                let (x, dx) = args[0].eval_with_input_derivative(t, inputs, i);
                let second = || args[1].eval_with_input_derivative(t, inputs, i);
                match f {
                    Func::Sin => (x.sin(), x.cos() * dx),
                    Func::Cos => (x.cos(), -x.sin() * dx),
                    Func::Tan => (x.tan(), dx / (x.cos() * x.cos())),
                    Func::Exp => (x.exp(), x.exp() * dx),
                    Func::Ln => (x.ln(), dx / x),
                    Func::Sqrt => (x.sqrt(), 0.5 * dx / x.sqrt()),
                    Func::Abs => (x.abs(), if x < 0.0 { -dx } else { dx }),
                    Func::Asin => (x.asin(), dx / (1.0 - x * x).sqrt()),
                    Func::Acos => (x.acos(), -dx / (1.0 - x * x).sqrt()),
                    Func::Atan => (x.atan(), dx / (1.0 + x * x)),
                    Func::Atan2 => {
                        let (y, dy) = second();
                        // atan2(x, y): d = (y dx - x dy) / (x^2 + y^2)
                        (x.atan2(y), (y * dx - x * dy) / (x * x + y * y))
                    }
                    // At a tie of values, the branch that holds beyond it (as `lexicographic`).
                    Func::Min => {
                        let (y, dy) = second();
                        if (x, dx) <= (y, dy) { (x, dx) } else { (y, dy) }
                    }
                    Func::Max => {
                        let (y, dy) = second();
                        if (x, dx) >= (y, dy) { (x, dx) } else { (y, dy) }
                    }
                }
            }
        }
    }

    /// Value and first and second derivatives in time at (t, inputs), each input the
    /// quadratic of `rates` about its time (held where its rates are zero): second-order
    /// forward-mode differentiation (truncated Taylor jets, Griewank & Walther 2008, ch. 13) —
    /// exact, no step size. Where a derivative is undefined (|x| at 0, a kink of min/max) the
    /// side of the branch `eval` takes is used.
    pub fn eval_time_jet(&self, t: f64, inputs: &[f64], rates: &InputRates) -> [f64; 3] {
        let chain = jet_chain;
        match self {
            Expr::Num(v) => [*v, 0.0, 0.0],
            Expr::Time => [t, 1.0, 0.0],
            Expr::Input(j) => rates.jet(*j, inputs[*j], t),
            Expr::Neg(a) => a.eval_time_jet(t, inputs, rates).map(|x| -x),
            Expr::Bin(op, a, b) => op.apply_jet(a.eval_time_jet(t, inputs, rates), b.eval_time_jet(t, inputs, rates)),
            Expr::Chain(first, rest) => rest.iter().fold(first.eval_time_jet(t, inputs, rates), |acc, (op, b)| {
                op.apply_jet(acc, b.eval_time_jet(t, inputs, rates))
            }),
            Expr::Call(f, args) => {
                let x = args[0].eval_time_jet(t, inputs, rates);
                let v = x[0];
                let second = || args[1].eval_time_jet(t, inputs, rates);
                match f {
                    Func::Sin => chain(x, v.sin(), v.cos(), -v.sin()),
                    Func::Cos => chain(x, v.cos(), -v.sin(), -v.cos()),
                    Func::Tan => {
                        let (tn, sec2) = (v.tan(), 1.0 + v.tan() * v.tan());
                        chain(x, tn, sec2, 2.0 * tn * sec2)
                    }
                    Func::Exp => chain(x, v.exp(), v.exp(), v.exp()),
                    Func::Ln => chain(x, v.ln(), 1.0 / v, -1.0 / (v * v)),
                    Func::Sqrt => chain(x, v.sqrt(), 0.5 / v.sqrt(), -0.25 / (v * v.sqrt())),
                    // At 0 the branch that holds just after t, by the first non-zero rate (the
                    // right-hand derivatives, as min/max): abs(T - t) at t = T turns at +1, not
                    // -1 (a probe's cart reversed by it was given its old speed there).
                    Func::Abs => {
                        let after = if v != 0.0 {
                            v
                        } else if x[1] != 0.0 {
                            x[1]
                        } else {
                            x[2]
                        };
                        x.map(|c| if after < 0.0 { -c } else { c })
                    }
                    Func::Asin | Func::Acos => {
                        let s = 1.0 - v * v;
                        let sign = if *f == Func::Asin { 1.0 } else { -1.0 };
                        let value = if *f == Func::Asin { v.asin() } else { v.acos() };
                        chain(x, value, sign / s.sqrt(), sign * v / (s * s.sqrt()))
                    }
                    Func::Atan => {
                        let d = 1.0 + v * v;
                        chain(x, v.atan(), 1.0 / d, -2.0 * v / (d * d))
                    }
                    Func::Atan2 => {
                        // theta = atan2(a, b): theta' = N/D with N = b a' - a b', D = a^2 + b^2;
                        // N' = b a'' - a b'', D' = 2 (a a' + b b').
                        let (a, b) = (x, second());
                        let (n, d) = (b[0] * a[1] - a[0] * b[1], a[0] * a[0] + b[0] * b[0]);
                        let (n1, d1) = (b[0] * a[2] - a[0] * b[2], 2.0 * (a[0] * a[1] + b[0] * b[1]));
                        [a[0].atan2(b[0]), n / d, (n1 * d - n * d1) / (d * d)]
                    }
                    // min/max of jets: the branch that holds just after t, found by comparing
                    // the Taylor coefficients in order (value, rate, acceleration). At a tie of
                    // values a kink's derivatives are the right-hand ones: min(t, T) and
                    // max(t - T, 0) at t = T gave rates 1 and 1 (the first argument's each),
                    // a drive f(min(t, T)) + w max(t - T, 0) twice its speed there.
                    Func::Min => {
                        let y = second();
                        if lexicographic(&x, &y).is_le() { x } else { y }
                    }
                    Func::Max => {
                        let y = second();
                        if lexicographic(&x, &y).is_ge() { x } else { y }
                    }
                }
            }
        }
    }

    /// How many kinks the expression can have: its `min`, `max` and `abs` calls, where its
    /// derivatives jump (`kink_switch`).
    pub fn kink_count(&self) -> usize {
        match self {
            Expr::Num(_) | Expr::Time | Expr::Input(_) => 0,
            Expr::Neg(a) => a.kink_count(),
            Expr::Bin(_, a, b) => a.kink_count() + b.kink_count(),
            Expr::Chain(first, rest) => first.kink_count() + rest.iter().map(|(_, b)| b.kink_count()).sum::<usize>(),
            Expr::Call(f, args) => {
                usize::from(matches!(f, Func::Min | Func::Max | Func::Abs))
                    + args.iter().map(Expr::kink_count).sum::<usize>()
            }
        }
    }

    /// The switching function of kink `k` (0 .. `kink_count`, in the order of the text) at
    /// (t, inputs with their `rates`): a - b of min(a, b) and max(a, b), x of abs(x). The
    /// derivatives of the expression may jump where it changes sign, nowhere else.
    pub fn kink_switch(&self, k: usize, t: f64, inputs: &[f64], rates: &InputRates) -> f64 {
        let mut skipped = 0;
        self.kink_switch_from(k, &mut skipped, t, inputs, rates).unwrap_or(f64::NAN)
    }

    /// `kink_switch` with the kinks before this node counted in `skipped`.
    fn kink_switch_from(
        &self,
        k: usize,
        skipped: &mut usize,
        t: f64,
        inputs: &[f64],
        rates: &InputRates,
    ) -> Option<f64> {
        if let Expr::Call(f @ (Func::Min | Func::Max | Func::Abs), args) = self {
            if *skipped == k {
                let value = |e: &Expr| e.eval_time_jet(t, inputs, rates)[0];
                return Some(if *f == Func::Abs { value(&args[0]) } else { value(&args[0]) - value(&args[1]) });
            }
            *skipped += 1;
        }
        let mut within = |e: &Expr| e.kink_switch_from(k, skipped, t, inputs, rates);
        match self {
            Expr::Num(_) | Expr::Time | Expr::Input(_) => None,
            Expr::Neg(a) => within(a),
            Expr::Bin(_, a, b) => within(a).or_else(|| within(b)),
            Expr::Chain(first, rest) => within(first).or_else(|| rest.iter().find_map(|(_, b)| within(b))),
            Expr::Call(_, args) => args.iter().find_map(within),
        }
    }

    /// The value if the expression depends on neither time nor inputs.
    pub fn constant(&self) -> Option<f64> {
        match self {
            Expr::Num(v) => Some(*v),
            _ => None,
        }
    }

    /// The inputs the expression reads, appended to `out` (in order of appearance, repeats
    /// included): one walk for all inputs (asking `reads_input` of every input and element was
    /// quadratic in the number of inputs).
    pub fn inputs_read(&self, out: &mut Vec<usize>) {
        match self {
            Expr::Input(j) => out.push(*j),
            Expr::Num(_) | Expr::Time => {}
            Expr::Neg(a) => a.inputs_read(out),
            Expr::Bin(_, a, b) => {
                a.inputs_read(out);
                b.inputs_read(out);
            }
            Expr::Chain(first, rest) => {
                first.inputs_read(out);
                rest.iter().for_each(|(_, b)| b.inputs_read(out));
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.inputs_read(out)),
        }
    }

    /// Whether the expression reads input `i` (direct feedthrough analysis).
    pub fn reads_input(&self, i: usize) -> bool {
        match self {
            Expr::Input(j) => *j == i,
            Expr::Num(_) | Expr::Time => false,
            Expr::Neg(a) => a.reads_input(i),
            Expr::Bin(_, a, b) => a.reads_input(i) || b.reads_input(i),
            Expr::Chain(first, rest) => first.reads_input(i) || rest.iter().any(|(_, b)| b.reads_input(i)),
            Expr::Call(_, args) => args.iter().any(|a| a.reads_input(i)),
        }
    }

    /// Constant folding: sub-trees without time or inputs become numbers. A chain folds the
    /// constants it starts with (the sub-trees of the left-leaning tree it stands for): a
    /// constant after a time-dependent operand is added to that sum, not moved before it.
    fn folded(self) -> Expr {
        let e = match self {
            Expr::Neg(a) => Expr::Neg(Box::new(a.folded())),
            Expr::Bin(op, a, b) => Expr::Bin(op, Box::new(a.folded()), Box::new(b.folded())),
            Expr::Chain(first, rest) => {
                let mut first = first.folded();
                let mut rest = rest.into_iter().map(|(op, b)| (op, b.folded())).peekable();
                while let (Some(a), Some(b)) = (first.constant(), rest.peek().and_then(|(_, b)| b.constant())) {
                    let (op, _) = rest.next().expect("peeked");
                    first = Expr::Num(op.apply(a, b));
                }
                let rest: Vec<_> = rest.collect();
                return if rest.is_empty() { first } else { Expr::Chain(Box::new(first), rest) };
            }
            Expr::Call(f, args) => Expr::Call(f, args.into_iter().map(Expr::folded).collect()),
            e => e,
        };
        let is_const = match &e {
            Expr::Neg(a) => a.constant().is_some(),
            Expr::Bin(_, a, b) => a.constant().is_some() && b.constant().is_some(),
            Expr::Call(_, args) => args.iter().all(|a| a.constant().is_some()),
            _ => false,
        };
        if is_const { Expr::Num(e.eval(0.0, &[])) } else { e }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    resolve: &'a dyn Fn(&str) -> Option<Symbol>,
    /// Active calls of `unary`, through which every recursion of the parser passes.
    nesting: usize,
}

/// A parsed sub-expression and the depth of its tree (a leaf is 1 deep).
type Parsed = Result<(Expr, usize), ExprError>;

impl Parser<'_> {
    fn error(&self, message: String) -> ExprError {
        ExprError { offset: self.pos, message }
    }

    /// The depth of a new node over children `depth` deep, refused beyond the limit.
    fn node(&self, depth: usize) -> Result<usize, ExprError> {
        if depth + 1 > MAX_EXPRESSION_DEPTH {
            return Err(self.too_deep());
        }
        Ok(depth + 1)
    }

    fn too_deep(&self) -> ExprError {
        self.error(format!(
            "expression nested deeper than {MAX_EXPRESSION_DEPTH} levels (parentheses, signs, function calls and '^' \
             count one level each, a chain of '+ -' or '* /' one level whatever its length)"
        ))
    }

    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn sum(&mut self) -> Parsed {
        self.chain(Self::product, |c| match c {
            b'+' => Some(Op::Add),
            b'-' => Some(Op::Sub),
            _ => None,
        })
    }

    fn product(&mut self) -> Parsed {
        self.chain(Self::unary, |c| match c {
            b'*' => Some(Op::Mul),
            b'/' => Some(Op::Div),
            _ => None,
        })
    }

    /// Operands from `operand` joined by the operators `op` reads, in a loop: one `Chain`
    /// node one level over its deepest operand, however many operands it has.
    fn chain(&mut self, operand: fn(&mut Self) -> Parsed, op: fn(u8) -> Option<Op>) -> Parsed {
        let (first, mut depth) = operand(self)?;
        let mut rest = Vec::new();
        while let Some(o) = self.peek().and_then(op) {
            self.pos += 1;
            let (rhs, d) = operand(self)?;
            depth = depth.max(d);
            rest.push((o, rhs));
        }
        if rest.is_empty() {
            return Ok((first, depth));
        }
        Ok((Expr::Chain(Box::new(first), rest), self.node(depth)?))
    }

    /// Every recursion of the parser passes here, so the nesting limit bounds its stack.
    fn unary(&mut self) -> Parsed {
        if self.nesting >= MAX_EXPRESSION_DEPTH {
            return Err(self.too_deep());
        }
        self.nesting += 1;
        let result = self.signed();
        self.nesting -= 1;
        result
    }

    fn signed(&mut self) -> Parsed {
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                let (e, d) = self.unary()?;
                Ok((Expr::Neg(Box::new(e)), self.node(d)?))
            }
            Some(b'+') => {
                self.pos += 1;
                self.unary()
            }
            _ => self.power(),
        }
    }

    /// `^` binds tighter than unary minus on its left and is right-associative: -a^b = -(a^b).
    fn power(&mut self) -> Parsed {
        let (base, db) = self.atom()?;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            let (exp, de) = self.unary()?;
            return Ok((Expr::Bin(Op::Pow, Box::new(base), Box::new(exp)), self.node(db.max(de))?));
        }
        Ok((base, db))
    }

    fn atom(&mut self) -> Parsed {
        let Some(c) = self.peek() else {
            return Err(self.error("expression ends where a number or name was expected".into()));
        };
        if c == b'(' {
            self.pos += 1;
            let e = self.sum()?;
            if self.peek() != Some(b')') {
                return Err(self.error("expected ')'".into()));
            }
            self.pos += 1;
            return Ok(e);
        }
        if c.is_ascii_digit() || c == b'.' {
            let start = self.pos;
            while self.pos < self.s.len() && (self.s[self.pos].is_ascii_digit() || self.s[self.pos] == b'.') {
                self.pos += 1;
            }
            if self.pos < self.s.len() && matches!(self.s[self.pos], b'e' | b'E') {
                let save = self.pos;
                self.pos += 1;
                if self.pos < self.s.len() && matches!(self.s[self.pos], b'+' | b'-') {
                    self.pos += 1;
                }
                if self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                    while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                        self.pos += 1;
                    }
                } else {
                    self.pos = save;
                }
            }
            let text = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
            return text
                .parse::<f64>()
                .map(|v| (Expr::Num(v), 1))
                .map_err(|_| ExprError { offset: start, message: format!("'{text}' is not a number") });
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = self.pos;
            while self.pos < self.s.len()
                && (self.s[self.pos].is_ascii_alphanumeric() || matches!(self.s[self.pos], b'_' | b'.'))
            {
                self.pos += 1;
            }
            let name = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
            if self.peek() == Some(b'(') {
                let Some((func, arity)) = Func::parse(name) else {
                    // A probe's `if(...)` read as "unknown function 'if'": the names, and how to write
                    // a switch without a conditional.
                    let message = format!(
                        "unknown function '{name}' (known: {}; a switch is written with min/max, e.g. \
                         min(max((t - 0.5)/0.01, 0), 1) for a 10 ms ramp at t = 0.5)",
                        Func::NAMES
                    );
                    return Err(ExprError { offset: start, message });
                };
                self.pos += 1;
                let (first, mut depth) = self.sum()?;
                let mut args = vec![first];
                while self.peek() == Some(b',') {
                    self.pos += 1;
                    let (arg, d) = self.sum()?;
                    depth = depth.max(d);
                    args.push(arg);
                }
                if self.peek() != Some(b')') {
                    return Err(self.error("expected ')' after function arguments".into()));
                }
                self.pos += 1;
                if args.len() != arity {
                    return Err(ExprError {
                        offset: start,
                        message: format!("{name}() takes {arity} argument(s), got {}", args.len()),
                    });
                }
                return Ok((Expr::Call(func, args), self.node(depth)?));
            }
            if name == "pi" {
                return Ok((Expr::Num(std::f64::consts::PI), 1));
            }
            return match (self.resolve)(name) {
                Some(Symbol::Constant(v)) => Ok((Expr::Num(v), 1)),
                Some(Symbol::Time) => Ok((Expr::Time, 1)),
                Some(Symbol::Input(i)) => Ok((Expr::Input(i), 1)),
                None => Err(ExprError { offset: start, message: format!("unknown name '{name}'") }),
            };
        }
        Err(self.error(format!("unexpected '{}'", c as char)))
    }
}

/// The first and second time derivatives of the inputs at time `t0` (where the inputs have
/// their current values): inside a communication interval with input derivatives (FMI's
/// fmi2SetRealInputDerivatives) input j is u_j + u'_j (t - t0) + u''_j (t - t0)^2 / 2; with
/// none (empty, the default) it is held. Part of snapshots: the rates an interval ended with
/// hold at its end point (outputs read them, and the next interval projects the drives
/// onto rates that change there).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InputRates {
    pub t0: f64,
    pub rates: Vec<[f64; 2]>,
}

/// Inputs held: no rates.
pub static HELD: InputRates = InputRates { t0: 0.0, rates: Vec::new() };

impl InputRates {
    /// Value and first and second time derivatives at t of input `j`, whose value at t0 is `u`.
    pub fn jet(&self, j: usize, u: f64, t: f64) -> [f64; 3] {
        match self.rates.get(j) {
            Some(&[d1, d2]) if d1 != 0.0 || d2 != 0.0 => {
                let dt = t - self.t0;
                [u + d1 * dt + 0.5 * d2 * dt * dt, d1 + d2 * dt, d2]
            }
            _ => [u, 0.0, 0.0],
        }
    }
}

/// Order of two time jets [value, rate, acceleration] by their Taylor coefficients, which is
/// their order just after t (NaN compares equal, so it falls back to the first argument).
fn lexicographic(a: &[f64; 3], b: &[f64; 3]) -> std::cmp::Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_function_names_in_messages_are_those_parsed() {
        for name in Func::NAMES.split(", ") {
            assert!(Func::parse(name).is_some(), "{name}");
        }
        assert_eq!(Func::NAMES.split(", ").count(), 13, "every function named");
        let e = Expr::parse("if(t, 1, 2)", &|_| None).unwrap_err();
        assert!(e.message.contains("known: sin") && e.message.contains("min(max("), "{e}");
    }

    fn resolve(name: &str) -> Option<Symbol> {
        match name {
            "L" => Some(Symbol::Constant(2.0)),
            "t" => Some(Symbol::Time),
            "u" => Some(Symbol::Input(0)),
            _ => None,
        }
    }

    fn eval(s: &str) -> f64 {
        Expr::parse(s, &resolve).unwrap().eval(0.5, &[3.0])
    }

    /// The time jet against central differences of `eval` (step 1e-4: truncation ~1e-8).
    #[test]
    fn time_jet_matches_finite_differences() {
        let cases = [
            "u*t^3 - 2*t + L",
            "sin(2*t)*exp(-t)/(1 + t^2)",
            "tan(t) + cos(t) - ln(1 + t) + sqrt(t + 1)",
            "asin(t/2) + acos(t/3) + atan(t)",
            "atan2(sin(t), cos(2*t) + 2) + abs(t - 0.3) + min(t, 1) + max(t^2, 0)",
            "(1 + t)^(t + 0.5) + t^2 + t^1 + (2*t)^0.5",
        ];
        for text in cases {
            let e = Expr::parse(text, &resolve).unwrap();
            for t in [0.4, 0.9] {
                let [v, d1, d2] = e.eval_time_jet(t, &[3.0], &InputRates::default());
                let h = 1e-4;
                let (p, m) = (e.eval(t + h, &[3.0]), e.eval(t - h, &[3.0]));
                assert_eq!(v, e.eval(t, &[3.0]), "{text}");
                assert!((d1 - (p - m) / (2.0 * h)).abs() < 1e-6 * (1.0 + d1.abs()), "{text}: d1 {d1}");
                assert!((d2 - (p - 2.0 * v + m) / (h * h)).abs() < 1e-4 * (1.0 + d2.abs()), "{text}: d2 {d2}");
            }
        }
        // Finite at 0 for integer exponents (no 0 * inf).
        let e = Expr::parse("t^2 + t^1", &resolve).unwrap();
        assert_eq!(e.eval_time_jet(0.0, &[0.0], &InputRates::default()), [0.0, 1.0, 2.0]);
        // At a kink of min/max the jet is the right-hand one: a drive that accelerates to
        // t = 1 and then runs at speed 3 has speed 3 and acceleration 0 there, not 6 (both
        // first arguments' rates) or the left-hand acceleration.
        let e = Expr::parse("3*(min(t, 1)^2/2 + max(t - 1, 0))", &resolve).unwrap();
        assert_eq!(e.eval_time_jet(1.0, &[0.0], &InputRates::default()), [1.5, 3.0, 0.0]);
        let e = Expr::parse("max(0, t - 1) + min(1, t)", &resolve).unwrap();
        assert_eq!(e.eval_time_jet(1.0, &[0.0], &InputRates::default()), [1.0, 1.0, 0.0]);
        // abs at its zero turns upwards, whichever way its argument crosses (abs(1 - t) had
        // the rate -1 at t = 1), and by the acceleration where the rate is 0.
        for text in ["abs(1 - t)", "abs(t - 1)"] {
            let e = Expr::parse(text, &resolve).unwrap();
            assert_eq!(e.eval_time_jet(1.0, &[0.0], &InputRates::default()), [0.0, 1.0, 0.0], "{text}");
        }
        let e = Expr::parse("abs(-(t - 1)^2)", &resolve).unwrap();
        assert_eq!(e.eval_time_jet(1.0, &[0.0], &InputRates::default()), [0.0, 0.0, 2.0]);
    }

    #[test]
    fn precedence_and_functions() {
        assert_eq!(eval("1 + 2*3"), 7.0);
        assert_eq!(eval("-L^2"), -4.0);
        assert_eq!(eval("2^3^2"), 512.0);
        assert_eq!(eval("(1+2)*3"), 9.0);
        assert_eq!(eval("L/4e-1"), 5.0);
        assert_eq!(eval("max(u, 1) * t"), 1.5);
        assert!((eval("sin(pi/2)") - 1.0).abs() < 1e-15);
        assert_eq!(eval("1.5E+1"), 15.0);
        assert!((eval("atan2(1, -1)") - 0.75 * std::f64::consts::PI).abs() < 1e-15);
        assert!((eval("asin(1)") - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    }

    #[test]
    fn constants_are_folded_and_dependencies_tracked() {
        let e = Expr::parse("L^2/12", &resolve).unwrap();
        assert_eq!(e.constant(), Some(4.0 / 12.0));
        let e = Expr::parse("2*u + sin(t)", &resolve).unwrap();
        assert_eq!(e.constant(), None);
        assert!(e.reads_input(0));
        assert!(!e.reads_input(1));
    }

    /// The forward-mode derivative equals a central difference (step 1e-5, error ~1e-10).
    #[test]
    fn input_derivative_matches_central_differences() {
        for text in [
            "2*u + sin(t)",
            "u^3 / (1 + u^2) - exp(-u) * cos(u*t)",
            "sqrt(u) + ln(u) + tan(u/10) + atan(u) + abs(-u) + asin(u/10) + acos(u/10)",
            "atan2(u, 2) + min(u, 5) + max(2*u, 1) + 2^u + u^u",
        ] {
            let e = Expr::parse(text, &resolve).unwrap();
            let (u, h) = (3.0, 1e-5);
            let (value, slope) = e.eval_with_input_derivative(0.5, &[u], 0);
            assert_eq!(value, e.eval(0.5, &[u]), "{text}");
            let fd = (e.eval(0.5, &[u + h]) - e.eval(0.5, &[u - h])) / (2.0 * h);
            assert!((slope - fd).abs() < 1e-8 * fd.abs().max(1.0), "{text}: {slope} vs {fd}");
            assert_eq!(e.eval_with_input_derivative(0.5, &[u], 1).1, 0.0, "{text}");
        }
    }

    #[test]
    fn errors_point_at_the_problem() {
        let err = Expr::parse("2*foo", &resolve).unwrap_err();
        assert_eq!(err.offset, 2);
        assert!(err.message.contains("unknown name 'foo'"));
        assert!(Expr::parse("(1+2", &resolve).is_err());
        assert!(Expr::parse("1 2", &resolve).is_err());
        assert!(Expr::parse("sin(1,2)", &resolve).is_err());
        assert!(Expr::parse("", &resolve).is_err());
    }

    /// Hostile nesting is refused with an error at the place it crosses the limit, not a stack
    /// overflow; everything up to the limit parses and evaluates.
    #[test]
    fn nesting_is_bounded() {
        let deep = |open: &str, n: usize, close: &str| format!("{}1{}", open.repeat(n), close.repeat(n));
        for text in [
            deep("(", 9000, ")"),
            "-".repeat(17_500) + "1",
            deep("1+(", 9000, ")"),
            vec!["2"; 40_000].join("^"),
            deep("sin(", 5000, ")"),
            deep("max(1,", 5000, ")"),
        ] {
            let err = Expr::parse(&text, &resolve).unwrap_err();
            assert!(err.message.contains("nested deeper than 100 levels"), "{}", err.message);
            assert!(err.offset < 700, "the error points where the limit is crossed: {}", err.offset);
        }
        // At the limit: 99 parentheses, 98 signs.
        assert_eq!(eval(&deep("(", 99, ")")), 1.0);
        assert_eq!(eval(&("-".repeat(98) + "u")), 3.0);
    }

    /// A chain of `+ -` or `* /` is one level however long (a sum of 200 terms was refused as
    /// "nested deeper than 100 levels"); it is walked in a loop, so 100,000 terms parse,
    /// evaluate and differentiate on a 256 KiB stack, to the bits of the left-leaning tree.
    #[test]
    fn flat_chains_of_any_length_are_one_level() {
        let n = 100_000;
        let run = move || {
            let sum = Expr::parse(&vec!["t"; n].join(" + "), &resolve).unwrap();
            assert_eq!(sum.eval(0.5, &[]), 0.5 * n as f64);
            let mixed = Expr::parse(&format!("u*{}", vec!["t*u - u/2"; n].join(" + ")), &resolve).unwrap();
            let [v, d1, d2] = mixed.eval_time_jet(0.5, &[3.0], &InputRates::default());
            // u*t*u - u/2 + (n - 1) (t*u - u/2): d/dt = u^2 + (n - 1) u.
            assert_eq!((v, d1, d2), (mixed.eval(0.5, &[3.0]), 9.0 + 3.0 * (n - 1) as f64, 0.0));
            let (_, du) = mixed.eval_with_input_derivative(0.5, &[3.0], 0);
            assert!(du.is_finite() && mixed.reads_input(0));
            let product = Expr::parse(&vec!["1.0000001"; n].join("*"), &resolve).unwrap();
            assert_eq!(product.constant(), Some((0..n).fold(1.0, |p, _| p * 1.0000001)));
        };
        std::thread::Builder::new().stack_size(256 * 1024).spawn(run).unwrap().join().unwrap();
        // Evaluated in the tree's order: constants folded only where they start the chain.
        let e = Expr::parse("1 + 2 + t + 1e-17 + 1e-17", &resolve).unwrap();
        assert_eq!(e.eval(1.0, &[]), ((3.0 + 1.0) + 1e-17) + 1e-17);
        let Expr::Chain(first, rest) = &e else { panic!("{e:?}") };
        assert_eq!((first.constant(), rest.len()), (Some(3.0), 3));
        // A chain inside parentheses is nested: 99 levels of sums in parentheses parse.
        assert_eq!(eval(&format!("{}1{}", "1+(".repeat(49), ")".repeat(49))), 50.0);
    }
}
