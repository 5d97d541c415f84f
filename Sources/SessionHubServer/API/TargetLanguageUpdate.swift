import HubDomain
import HubStorage

/// One entry of `targetLanguages` in `PUT /api/profile`, as sent: its level is checked by
/// ``ProfileUpdate/applied(to:now:)`` with a clear message instead of failing the whole decode.
struct TargetLanguageUpdate: Decodable {
    var code: String
    var proficiencyLevel: String
    var startedAt: Int64
}
