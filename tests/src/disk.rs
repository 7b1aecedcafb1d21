//! A small disk that a test fills up: a tmpfs of a few megabytes, mounted for the test and
//! unmounted when dropped. Mounting needs root (CI runs as root).

use std::path::{Path, PathBuf};
use std::process::Command;

/// A mounted tmpfs.
pub struct SmallDisk {
    mount: PathBuf,
}

impl SmallDisk {
    /// Mounts a tmpfs of `megabytes` at `dir/disk`, or says why it cannot.
    pub fn mount(dir: &Path, megabytes: u32) -> Result<SmallDisk, String> {
        let mount = dir.join("disk");
        std::fs::create_dir_all(&mount).map_err(|e| e.to_string())?;
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(&mount)
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("mount exited with {status}"));
        }
        Ok(SmallDisk { mount })
    }

    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        &self.mount
    }

    /// Fills what is left of the disk with a file of its own.
    pub fn fill(&self) {
        use std::io::Write;
        let mut filler = std::fs::File::create(self.filler()).unwrap();
        let block = vec![0u8; 64 * 1024];
        while filler.write_all(&block).is_ok() {}
        // What a whole block would not fit into.
        while filler.write_all(&[0u8; 512]).is_ok() {}
    }

    /// Makes room again.
    pub fn make_room(&self) {
        std::fs::remove_file(self.filler()).unwrap();
    }

    fn filler(&self) -> PathBuf {
        self.mount.join("filler")
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.mount).status();
    }
}

/// Whether the tests run as root.
pub fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}
