//! The integration tests: one test binary, a module per concern (see
//! `tests/README.md`), sharing the helpers of `common`.

mod common;

mod browser;
mod build;
mod check;
mod cli;
mod engine;
mod faults;
mod index;
mod lasker;
mod nmove;
mod pack;
mod perft;
mod placing;
mod play;
mod python;
mod serve;
mod serve_load;
mod solver;
mod tables;
mod tree;
mod unmoves;
mod values_ref;
mod verify;
