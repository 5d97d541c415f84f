#if os(Linux)
import Foundation
import Glibc
import SessionHubServer
import Testing

/// ``HeapTrimmer`` returns freed heap memory: after 48 MiB of 16 KiB blocks are freed with every
/// tenth kept (so the free space lies between live blocks and glibc's own top-of-heap trim
/// cannot release it), a trim takes most of the freed blocks' pages out of memory.
///
/// Residency is read per page of the freed blocks (`mincore`), not as the process's RSS: other
/// suites run in the same process at the same time and allocate and free as they please.
@Suite("Heap trim")
struct HeapTrimmerTests {
    /// Resident pages among the whole pages inside `blocks` (each `size` bytes), leaving out the
    /// pages at either end of a block, which may hold the allocator's chunk headers.
    private static func residentPages(_ blocks: [UnsafeMutableRawPointer], size: Int) -> (resident: Int, pages: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var vector = [UInt8](repeating: 0, count: size / page + 1)
        var resident = 0, pages = 0
        for block in blocks {
            let start = (Int(bitPattern: block) / page + 2) * page
            let end = (Int(bitPattern: block) + size) / page * page - page
            guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { continue }
            let count = (end - start) / page
            guard mincore(address, end - start, &vector) == 0 else { continue }
            pages += count
            resident += vector.prefix(count).reduce(0) { $0 + Int($1 & 1) }
        }
        return (resident, pages)
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
        var kept: [UnsafeMutableRawPointer] = [], freed: [UnsafeMutableRawPointer] = []
        for (i, p) in blocks.enumerated() {
            if i % 10 == 0 { kept.append(p) } else { p.deallocate(); freed.append(p) }
        }
        let before = Self.residentPages(freed, size: block)
        HeapTrimmer.trim()
        let after = Self.residentPages(freed, size: block)
        for p in kept { p.deallocate() }
        #expect(before.pages > 1_000, "whole pages inside the freed blocks: \(before.pages)")
        #expect(before.resident * 10 >= before.pages * 9, "freed, not trimmed yet: \(before.resident) of \(before.pages) pages resident")
        #expect(after.resident * 4 <= before.resident, "after the trim \(after.resident) of \(after.pages) pages resident (before: \(before.resident))")
    }
}
#endif
