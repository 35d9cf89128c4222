import Testing

@testable import TroveWeb

@Suite("trove web's access rules")
struct AccessTests {
    @Test("tokens compare by every byte")
    func compare() {
        #expect(Access.same("abc", "abc"))
        #expect(!Access.same("abc", "abd"))
        #expect(!Access.same("abc", "abcd"))
        #expect(Access.mintToken().count == 64)
        #expect(Access.mintToken() != Access.mintToken())
    }
}
