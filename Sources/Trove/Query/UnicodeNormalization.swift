// The standard library's decomposition, behind SPI: the one `String ==` uses, so the forms
// below agree with string equality on the toolchain's Unicode version (Foundation's own
// tables can be older), and without linking Foundation (see DEVELOPERS.md).
@_spi(_Unicode) import Swift

extension String {
    /// The string in Normalization Form C (`precomposedStringWithCanonicalMapping`).
    var nfc: String { String(decoding: _nfcCodeUnits, as: UTF8.self) }

    /// The string in Normalization Form D (`decomposedStringWithCanonicalMapping`).
    var nfd: String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: nfdScalars)
        return String(scalars)
    }

    /// The scalars of `nfd`, produced as read, for callers that filter them into a string
    /// of their own.
    var nfdScalars: some Sequence<Unicode.Scalar> { _nfd }
}
