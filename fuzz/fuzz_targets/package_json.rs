#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| refgraph::fuzz::package_json(data));
