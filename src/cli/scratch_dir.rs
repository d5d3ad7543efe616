//! A command's scratch directory (`animate MODEL.toml` simulates into one): removed however the
//! command ends. Returning or failing drops it; a second Ctrl-C, which ends the process at
//! once, removes the files registered here first (src/cli/interrupt.rs). The first Ctrl-C is
//! the command's to catch (`interrupt::catch` before the directory is made), so that it
//! returns and drops the directory: an `animate` interrupted while its model loaded ended at
//! once and left its directory behind.

use std::path::PathBuf;

use anyhow::{Context, Result};

pub struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    /// Make the directory `<temp>/<prefix>-<process id>`, which will hold the files `names`.
    pub fn create(prefix: &str, names: &[&str]) -> Result<ScratchDir> {
        let path = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
        // Registered before it exists: a second Ctrl-C at any moment from here leaves nothing.
        let mut removed: Vec<PathBuf> = names.iter().map(|n| path.join(n)).collect();
        removed.push(path.clone());
        super::interrupt::remove_on_exit(&removed);
        std::fs::create_dir_all(&path).with_context(|| format!("cannot create {}", path.display()))?;
        Ok(ScratchDir { path })
    }

    /// The path of the file `name` in the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
