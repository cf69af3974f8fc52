//! A full disk: the campaign stops at the first finding it cannot write,
//! prints its summary, names what it could not write with what finds it
//! again, frees the half-written folder and exits 2.

use std::process::Command;

/// A 64 KiB tmpfs filled to its last 8 KiB, unmounted when dropped.
struct FullDisk(tempfile::TempDir);

impl FullDisk {
    /// `None` (said on stderr) where this process may not mount: only root can.
    fn mount() -> Option<Self> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        if !mounted {
            eprintln!("SKIPPED: a full disk needs a tmpfs mount, which needs root; this process could not mount");
            return None;
        }
        std::fs::write(dir.path().join("fill"), vec![0u8; 56 * 1024]).expect("fill the disk");
        Some(Self(dir))
    }
}

impl Drop for FullDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

#[test]
fn a_full_disk_stops_the_campaign_with_its_summary_and_loses_no_finding() {
    let Some(disk) = FullDisk::mount() else { return };
    let out = disk.0.path().join("out");
    // Seed 0 on the embedded Grafeo files a metamorphic finding within its first graph.
    let o = crate::graphlancer(&["run", "--queries", "300", "--seed", "0", "--out", out.to_str().expect("utf-8")]);
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stdout.contains("queries on") && stdout.contains("findings:"), "no summary: {stdout}");
    let lost = stderr.lines().find(|l| l.contains("could not be written")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(lost.contains("seed 0, graph ") && lost.contains("No space left on device"), "{lost}");
    let findings: Vec<_> = std::fs::read_dir(out.join("findings")).expect("findings").flatten().collect();
    assert!(findings.is_empty(), "a half-written folder was left: {findings:?}");
}
