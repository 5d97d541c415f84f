import Foundation

/// The rules of a cluster node's id (`--node-id`): 1 to 63 characters of `a-z`, `0-9` and `-`,
/// starting with a letter or digit — usable as a path segment (`/node/<id>/ws`) and a label.
public enum NodeIdentity {
    /// Whether `id` is a valid node id.
    public static func isValid(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, id.unicodeScalars.count <= 63 else { return false }
        func allowed(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
        }
        return first != "-" && id.unicodeScalars.allSatisfy(allowed)
    }

    /// The host name made into a valid node id (lower case, other characters as `-`), or `node`.
    public static func defaultNodeId() -> String {
        let host = ProcessInfo.processInfo.hostName.lowercased()
        var id = String(String.UnicodeScalarView(host.unicodeScalars.map { scalar in
            (("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)) ? scalar : "-"
        }).prefix(63))
        while id.hasPrefix("-") { id.removeFirst() }
        return isValid(id) ? id : "node"
    }
}
