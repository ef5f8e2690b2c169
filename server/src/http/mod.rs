//! HTTP: router and errors.
