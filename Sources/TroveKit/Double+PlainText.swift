extension Double {
    /// `2` for 2.0, `0.75` for 0.75: a parameter as a person writes it, in messages and help.
    package var plainText: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
