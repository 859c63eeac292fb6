//! The fuzz targets' properties over their kept inputs (`fuzz/regressions/<target>/`: inputs
//! that once broke a decoder, and seeds), on stable, in every `cargo test`.

use std::fs;
use std::path::Path;
use txn_rocksdb_format::properties::TARGETS;

#[test]
fn kept_inputs_keep_their_properties() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut checked = 0;
    for (name, property) in TARGETS {
        let dir = root.join(name);
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            let bytes = fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| property(&bytes));
            assert!(outcome.is_ok(), "{name} fails on {}", path.display());
            checked += 1;
        }
    }
    assert!(checked > 0, "no kept inputs under {}", root.display());
}
