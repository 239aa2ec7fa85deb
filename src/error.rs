//! Maps engine errors to JS errors, in one place.
