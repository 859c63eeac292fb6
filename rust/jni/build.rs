//! macOS: the library's install name is `@rpath/libtxn_rocksdb_jni.dylib`, not the path it was
//! linked at (Zig's linker, in the cross build, writes the build machine's path; Java loads the
//! library by its full path either way, but a path of the build machine has no place in it).
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/libtxn_rocksdb_jni.dylib");
    }
}
