//! Seed conformance: each seed document of `../shared/seeds/` (the systems this project was
//! started from) with its own examples (YAML files, pseudo-code flows, provider classes
//! translated to Rust) run against the library, asserting the behaviour the seed describes.
//! A regression in any seed's contract fails here. `docs/seeds.md` maps every feature of each
//! seed to where it lives and to the test that shows it.

mod support;

mod seed_000;
mod seed_001;
mod seed_002;
mod seed_003;
mod seed_004;
