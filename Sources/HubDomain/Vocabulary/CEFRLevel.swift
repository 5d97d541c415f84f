/// A level of the Common European Framework of Reference, as in the SDK (`A1` … `C2`).
public enum CEFRLevel: String, Codable, Sendable, CaseIterable, Comparable {
    case a1 = "A1", a2 = "A2", b1 = "B1", b2 = "B2", c1 = "C1", c2 = "C2"

    /// The fewest learned words (``CEFREstimate``) that reach this level: 0, 500, 1000, 2000,
    /// 4000, 8000 (docs/API.md, "CEFR estimate").
    public var wordsToReach: Int {
        switch self {
        case .a1: 0
        case .a2: 500
        case .b1: 1000
        case .b2: 2000
        case .c1: 4000
        case .c2: 8000
        }
    }

    /// The next level up, nil for C2.
    public var next: CEFRLevel? {
        let all = Self.allCases
        guard let index = all.firstIndex(of: self), index + 1 < all.count else { return nil }
        return all[index + 1]
    }

    public static func < (lhs: CEFRLevel, rhs: CEFRLevel) -> Bool { lhs.wordsToReach < rhs.wordsToReach }
}
