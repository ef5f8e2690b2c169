//! The worker role's `jobactivity` as the design creates them, on SQLite, PostgreSQL 15 and MariaDB
//! 10.11, read by Sundial: the facts each case plants, asserted on every engine.
