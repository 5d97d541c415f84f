@testable import HubStorage
import Testing

@Suite("UTC days and ISO weeks")
struct UTCCalendarTests {
    @Test("Days, date strings and week starts match the calendar", arguments: [
        (Int64(20773), "2026-11-16", Int64(20773)),
        (Int64(20779), "2026-11-22", Int64(20773)),
        (Int64(20780), "2026-11-23", Int64(20780)),
        (Int64(19782), "2024-02-29", Int64(19779)),
        (Int64(11017), "2000-03-01", Int64(11015)),
        (Int64(0), "1970-01-01", Int64(-3)),
        (Int64(-1), "1969-12-31", Int64(-3)),
    ])
    func calendar(day: Int64, date: String, monday: Int64) {
        #expect(UTCCalendar.dateString(ofDay: day) == date)
        #expect(UTCCalendar.day(ofDateString: date) == day)
        #expect(UTCCalendar.weekStart(ofDay: day) == monday)
    }

    @Test("Epoch milliseconds map to UTC days by floor division")
    func epochDays() {
        #expect(UTCCalendar.day(ofEpochMs: 1_794_787_200_000) == 20773)
        #expect(UTCCalendar.day(ofEpochMs: 1_794_787_200_000 - 1) == 20772)
        #expect(UTCCalendar.day(ofEpochMs: -1) == -1)
        #expect(UTCCalendar.day(ofDateString: "2026-13-01") == nil)
        #expect(UTCCalendar.day(ofDateString: "nonsense") == nil)
    }

    @Test("Every day of 400 years round-trips through its date string")
    func roundTrip() {
        for day in Int64(-36_525)...Int64(109_572) where day % 7 == 0 {
            #expect(UTCCalendar.day(ofDateString: UTCCalendar.dateString(ofDay: day)) == day)
        }
    }
}
