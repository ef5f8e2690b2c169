//! The pages' Backend over the configured sources, cached. (Stub.)
