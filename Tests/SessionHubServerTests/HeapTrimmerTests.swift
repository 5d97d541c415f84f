#if os(Linux)
import Foundation
import SessionHubServer
import Testing

/// ``HeapTrimmer`` returns freed heap memory: after 48 MiB of 16 KiB blocks are freed with every
/// tenth kept (so the free space lies between live blocks and glibc's own top-of-heap trim
/// cannot release it), a trim lowers the process's RSS by most of it.
@Suite("Heap trim")
struct HeapTrimmerTests {
    private static func rssKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    @Test("Freed blocks between live ones go back to the system")
    func trimReleasesFreedBlocks() throws {
        let block = 16 * 1024
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<(48 * 64) {
            let p = UnsafeMutableRawPointer.allocate(byteCount: block, alignment: 16)
            p.initializeMemory(as: UInt8.self, repeating: 0xA5, count: block)
            blocks.append(p)
        }
        var kept: [UnsafeMutableRawPointer] = []
        for (i, p) in blocks.enumerated() {
            if i % 10 == 0 { kept.append(p) } else { p.deallocate() }
        }
        let before = try Self.rssKiB()
        HeapTrimmer.trim()
        let after = try Self.rssKiB()
        for p in kept { p.deallocate() }
        #expect(before - after >= 16 * 1024, "RSS \(before) KiB before the trim, \(after) KiB after")
    }
}
#endif
