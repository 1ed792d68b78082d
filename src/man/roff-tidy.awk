# SPDX-License-Identifier: MIT
#
# roff-tidy.awk - scdoc's roff made into what groff and mandoc read without a warning (run with
# LC_ALL=C, so that a character is a byte):
#  - every character beyond ASCII as groff's escape of its code point (× as \[u00D7]): groff
#    reads its input as Latin-1 unless preconv(1) ran first, and takes UTF-8 for other
#    characters or for invalid input;
#  - no paragraph macro (.P) that starts no paragraph: none after .TH, .SH or .SS, or before
#    .SH or .SS, and one before .RE moved after it, as a blank line after an item's text
#    means (mandoc -Tlint: "skipping paragraph macro").
# Refuses input that is not UTF-8 (exit 1).

BEGIN {
	for (i = 1; i < 256; i++)
		byte[sprintf("%c", i)] = i
	held = 0	# a .P not yet printed
	heading = 0	# the last macro printed was .TH, .SH or .SS
}

# s with each UTF-8 sequence written \[uXXXX]
function ascii(s,    out, i, n, c, b, k, cp, need) {
	out = ""
	n = length(s)
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		b = byte[c]
		if (b < 128) {
			out = out c
			continue
		}
		if (b >= 240 && b < 248) { need = 3; cp = b - 240 }
		else if (b >= 224) { need = 2; cp = b - 224 }
		else if (b >= 192) { need = 1; cp = b - 192 }
		else need = -1
		for (k = 1; k <= need; k++) {
			b = byte[substr(s, i + k, 1)]
			if (b < 128 || b >= 192) { need = -1; break }
			cp = cp * 64 + b - 128
		}
		if (need < 0) {
			printf("%s:%d: not UTF-8\n", FILENAME, FNR) > "/dev/stderr"
			bad = 1
			exit 1
		}
		out = out sprintf("\\[u%04X]", cp)
		i += need
	}
	return out
}

/^\.P$/ {
	if (!heading)
		held = 1
	next
}

/^\.(TH|SH|SS)( |$)/ {
	held = 0
	print ascii($0)
	heading = 1
	next
}

/^\.RE$/ {
	print
	next
}

{
	if (held)
		print ".P"
	held = 0
	heading = 0
	print ascii($0)
}

END {
	if (bad)
		exit 1
}
