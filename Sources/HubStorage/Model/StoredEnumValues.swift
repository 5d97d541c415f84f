/// Reading enum lists back from storage leniently: a stored value that is no longer (or was
/// never) one of the enum's cases is dropped rather than making the whole record unreadable.
/// Older free-text values are matched ignoring case, spaces and dashes (`"travel"` → `TRAVEL`,
/// `"connect with people"` → `CONNECT_WITH_PEOPLE`).
package enum StoredEnumValues {
    /// The known values of `stored`, in order, without duplicates.
    package static func lenient<Value: RawRepresentable & Hashable>(_ stored: [String], as _: Value.Type) -> [Value]
    where Value.RawValue == String {
        var seen: Set<Value> = []
        var values: [Value] = []
        for text in stored {
            let normalized = String(text.uppercased().map { $0 == " " || $0 == "-" ? "_" : $0 })
            guard let value = Value(rawValue: text) ?? Value(rawValue: normalized), seen.insert(value).inserted else { continue }
            values.append(value)
        }
        return values
    }
}
