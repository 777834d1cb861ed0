// Nothing to import: the target defines the Swift runtime's argv accessor for the linker
// (TroveArguments.c). SwiftPM wants a public header directory of every C target.
