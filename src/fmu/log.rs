//! Log categories, defined once: modelDescription.xml declares them in this order and
//! instances filter their messages by them (`fmi2SetDebugLogging` names them).

use super::Status;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Events,
    StatusWarning,
    StatusDiscard,
    StatusError,
    StatusFatal,
    All,
    Solver,
}

impl Category {
    /// Declaration order in modelDescription.xml.
    pub const ALL: [Category; 7] = [
        Category::Events,
        Category::StatusWarning,
        Category::StatusDiscard,
        Category::StatusError,
        Category::StatusFatal,
        Category::All,
        Category::Solver,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Category::Events => "logEvents",
            Category::StatusWarning => "logStatusWarning",
            Category::StatusDiscard => "logStatusDiscard",
            Category::StatusError => "logStatusError",
            Category::StatusFatal => "logStatusFatal",
            Category::All => "logAll",
            Category::Solver => "logSolver",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Category::Events => "Log events (initialization, termination, state changes)",
            Category::StatusWarning => "Log messages with status fmi2Warning",
            Category::StatusDiscard => "Log messages with status fmi2Discard",
            Category::StatusError => "Log messages with status fmi2Error",
            Category::StatusFatal => "Log messages with status fmi2Fatal",
            Category::All => "Log everything",
            Category::Solver => "Log solver statistics and failures",
        }
    }

    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == name)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Where an instance's messages go: the FMI layer's logger callback (status, category,
/// message text).
pub type Logger = Box<dyn Fn(Status, Category, &str)>;

/// The categories on by default, also with `loggingOn = false`: why a call failed. A discarded
/// step (the solver's failure, which ends the run: fmi2Terminated) was silent in FMPy's
/// default workflow, which returned the rows before it without a word (a probe).
const EXPLAIN_FAILURES: [Category; 3] = [Category::StatusDiscard, Category::StatusError, Category::StatusFatal];

/// The categories an instance logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Enabled([bool; Category::ALL.len()]);

impl Enabled {
    /// The explanations of a failed call only (`EXPLAIN_FAILURES`), or everything.
    pub fn new(logging_on: bool) -> Enabled {
        let mut on = [logging_on; Category::ALL.len()];
        for c in EXPLAIN_FAILURES {
            on[c.index()] = true;
        }
        Enabled(on)
    }

    pub fn set(&mut self, category: Category, on: bool) {
        self.0[category.index()] = on;
    }

    pub fn set_all(&mut self, on: bool) {
        self.0 = [on; Category::ALL.len()];
    }

    /// Exactly `categories`, besides `EXPLAIN_FAILURES`, which keep their state: they explain
    /// an fmi2Discard / fmi2Error / fmi2Fatal, not debug output (switched off only by name or
    /// with all categories).
    pub fn only(&mut self, categories: &[Category]) {
        let keep = EXPLAIN_FAILURES.map(|c| (c, self.0[c.index()]));
        self.0 = [false; Category::ALL.len()];
        for (c, on) in keep {
            self.0[c.index()] = on;
        }
        for c in categories {
            self.0[c.index()] = true;
        }
    }

    pub fn logs(&self, category: Category) -> bool {
        self.0[category.index()] || self.0[Category::All.index()]
    }
}
