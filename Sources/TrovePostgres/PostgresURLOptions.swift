extension PostgresConnection {
    /// `url` with `options` added to libpq's `options` parameter (the server's command-line
    /// options: `-csearch_path=app` keeps a store's tables in the PostgreSQL schema `app`),
    /// percent-encoded: after the URL's parameters when it has some, after the options it
    /// already names when it names some, as a new query when it has none. The server splits
    /// `options` at spaces: write a space inside one option as `\ ` and a backslash as `\\`,
    /// as libpq's documentation of `options` says.
    ///
    /// ```swift
    /// PostgresConnection.url("postgres://app@db/trove", options: "-csearch_path=app")
    /// // postgres://app@db/trove?options=-csearch_path%3Dapp
    /// ```
    public static func url(_ url: String, options: String) -> String {
        let encoded = percentEncoded(options)
        guard let mark = queryStart(in: url) else { return url + "?options=" + encoded }
        var parameters = url[url.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false).map(String.init)
        // libpq keeps the last of several `options`, so the new ones join that one.
        if let existing = parameters.lastIndex(where: { $0.hasPrefix("options=") }) {
            parameters[existing] += (parameters[existing] == "options=" ? "" : "%20") + encoded
        } else if parameters.last == "" {
            // A URL ending in `?` or `&`: appending after it would make an empty parameter,
            // which libpq refuses.
            parameters[parameters.count - 1] = "options=" + encoded
        } else {
            parameters.append("options=" + encoded)
        }
        return url[...mark] + parameters.joined(separator: "&")
    }

    /// Where the query of `url` starts (its `?`), as libpq reads a URL: the user information
    /// runs to the first `@` before any `/`, and may hold a `?` of a password.
    private static func queryStart(in url: String) -> String.Index? {
        guard let scheme = url.firstRange(of: "://") else { return url.firstIndex(of: "?") }
        var rest = url[scheme.upperBound...]
        if let at = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[at] == "@" {
            rest = rest[rest.index(after: at)...]
        }
        return rest.firstIndex(of: "?")
    }

    /// `text` percent-encoded for a URL's query: every byte but RFC 3986's unreserved ones.
    private static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }
}
