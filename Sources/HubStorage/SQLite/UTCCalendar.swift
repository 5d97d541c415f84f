/// UTC days and ISO weeks as plain integers: a day is the number of days since 1970-01-01
/// (floor division, so times before 1970 work too). No time zones, no Foundation calendar.
package enum UTCCalendar {
    static let millisecondsPerDay: Int64 = 86_400_000

    /// The UTC day of an epoch-ms time.
    package static func day(ofEpochMs ms: Int64) -> Int64 {
        floorDivide(ms, millisecondsPerDay)
    }

    /// The Monday that starts the ISO week of `day` (1970-01-01 was a Thursday).
    package static func weekStart(ofDay day: Int64) -> Int64 {
        day - floorModulo(day + 3, 7)
    }

    /// `YYYY-MM-DD` for a day (the civil-from-days algorithm, proleptic Gregorian).
    package static func dateString(ofDay day: Int64) -> String {
        let z = day + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(dayOfMonth, 2)
    }

    /// The day of a `YYYY-MM-DD` string, or nil when it is not one.
    package static func day(ofDateString text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].count == 2, parts[2].count == 2,
              let year = Int64(parts[0]), let month = Int64(parts[1]), let dayOfMonth = Int64(parts[2]),
              (1...12).contains(month), (1...31).contains(dayOfMonth) else { return nil }
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(shiftedYear, 400)
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + dayOfMonth - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    private static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDivide(a, b) * b
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
