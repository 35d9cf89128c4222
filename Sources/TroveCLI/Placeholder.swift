public enum TroveCLIPlaceholder {}
