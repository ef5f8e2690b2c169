//! The engine's integration tests: one test binary (`cargo test -p sundial-engine --test
//! integration`), each file a module, as ripgrep lays its tests out. The data-driven cases live
//! in `tests/cases/` (adding one needs no code); `support` reads them and holds what the
//! modules share.
mod support;

mod agent_cases;
mod agent_props;
mod cron_croniter;
mod deadline_cases;
mod dialect_cases;
mod dialect_props;
mod durations;
mod edit_cases;
mod fleet;
mod fuzz;
mod maintenance_cases;
mod pgagent_props;
mod primentra_chain;
mod reconcile_cases;
mod reconcile_props;
mod replay;
mod risks_cases;
mod risks_props;
mod speed_reconcile;
mod step_cases;
mod triage;
mod zone_rules;
