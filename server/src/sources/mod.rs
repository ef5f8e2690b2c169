//! One file per source kind; the only place SQL lives.
