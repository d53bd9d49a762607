//! Vendors the SPARQL console's editor into the binary: `@zazuko/yasgui` (MIT), a pinned
//! release fetched from the npm registry and checked against the registry's sha512 integrity
//! before a byte of it is used. Nothing is committed to the repository and nothing is fetched at
//! run time: `serve --http` serves these files from memory and never calls outside services.
//!
//! Offline builds: set `REFGRAPH_YASGUI_TGZ` to a copy of the tarball (`npm pack
//! @zazuko/yasgui@4.6.2`); it is verified the same way.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use sha2::Digest as _;

const YASGUI_VERSION: &str = "4.6.2";
/// `dist.integrity` of @zazuko/yasgui 4.6.2 in the npm registry.
const YASGUI_SHA512: &str =
    "Zw45KdPoAE1KRaAoxIHdQqeJxvaVG1oQdntw0hy0ktX35Zu8ZccuOLrXCLwR+GU+0xMzLw8Mjw6BkSZV2vUuQw==";
const FILES: [&str; 2] = ["yasgui.min.js", "yasgui.min.css"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=REFGRAPH_YASGUI_TGZ");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dir = out.join(format!("yasgui-{YASGUI_VERSION}"));
    println!("cargo:rustc-env=REFGRAPH_YASGUI_DIR={}", dir.display());
    println!("cargo:rustc-env=REFGRAPH_YASGUI_VERSION={YASGUI_VERSION}");
    if FILES.iter().all(|f| dir.join(f).exists()) {
        return;
    }
    let tgz = match std::env::var_os("REFGRAPH_YASGUI_TGZ") {
        Some(p) => PathBuf::from(p),
        None => download(&out),
    };
    let bytes = std::fs::read(&tgz)
        .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", tgz.display())));
    let digest = base64::engine::general_purpose::STANDARD.encode(sha2::Sha512::digest(&bytes));
    if digest != YASGUI_SHA512 {
        let _ = std::fs::remove_file(out.join("yasgui.tgz"));
        fail(&format!(
            "{} is not @zazuko/yasgui {YASGUI_VERSION}: sha512 {digest}, expected {YASGUI_SHA512}",
            tgz.display()
        ));
    }
    let staging = out.join("yasgui-staging");
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).unwrap_or_else(|e| fail(&e.to_string()));
    let mut tar = Command::new("tar");
    tar.arg("-xzf").arg(&tgz).arg("-C").arg(&staging);
    for f in FILES {
        tar.arg(format!("package/build/{f}"));
    }
    run(&mut tar, "tar");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(staging.join("package/build"), &dir).unwrap_or_else(|e| fail(&e.to_string()));
    let _ = std::fs::remove_dir_all(&staging);
}

/// The tarball from the npm registry, with curl (which rustup itself needs).
fn download(out: &Path) -> PathBuf {
    let tgz = out.join("yasgui.tgz");
    let url = format!("https://registry.npmjs.org/@zazuko/yasgui/-/yasgui-{YASGUI_VERSION}.tgz");
    run(
        Command::new("curl")
            .args(["--fail", "--silent", "--show-error", "--location"])
            .args(["--retry", "3", "--output"])
            .arg(&tgz)
            .arg(&url),
        &format!("curl {url}"),
    );
    tgz
}

fn run(cmd: &mut Command, what: &str) {
    match cmd.status() {
        Ok(s) if s.success() => {}
        Ok(s) => fail(&format!("{what} failed ({s})")),
        Err(e) => fail(&format!("{what} could not start: {e}")),
    }
}

fn fail(why: &str) -> ! {
    panic!(
        "vendoring the SPARQL console editor (@zazuko/yasgui {YASGUI_VERSION}) failed: {why}. \
         The build fetches it once from registry.npmjs.org; offline, point REFGRAPH_YASGUI_TGZ \
         at the tarball (`npm pack @zazuko/yasgui@{YASGUI_VERSION}`)."
    )
}
