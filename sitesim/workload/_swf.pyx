# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled twin of :func:`sitesim.workload.swf_ints.plain_record`: the record of an
SWF job line of 18 plain numbers (canonical integers, and plain decimals where a field
may be fractional), else None.

Why: reading is about a fifth of a replay, and most of it was turning tokens into
numbers one Python call at a time. This scans the line's characters once, in C; a
decimal is read by the function ``float`` itself uses (``PyOS_string_to_double``), so
it is the same number.

It answers exactly as the Python original, which stays the specification
(tests/workload/test_swf_twin.py holds the two together): it decides itself only lines
made of ASCII digits, minus signs, points and the six ASCII blanks, with no integer
token longer than 18 digits; any other line (a comment, a tab of another kind, a long
integer, non-ASCII text) gets the original's answer.
"""

from cpython.ref cimport PyObject
from libc.math cimport isfinite

from sitesim.workload.swf_ints import plain_record as _original
from sitesim.workload.swf_record import N_FIELDS as _FIELDS, WHOLE_FIELDS, SwfRecord

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object)
    const char* PyUnicode_AsUTF8AndSize(object, Py_ssize_t*) except NULL
    double PyOS_string_to_double(const char*, char**, PyObject*) except? -1.0

cdef enum:
    N_FIELDS = 18  # fields in an SWF job line
    MAX_DIGITS = 18  # the longest integer decided here: 18 digits fit a signed 64-bit integer

# The C arrays below need the field count as a constant: it must be the record's own
# (a mismatch is an ImportError, after which the Python original runs).
if _FIELDS != N_FIELDS:
    raise ImportError(f"_swf was built for {N_FIELDS} fields, the record has {_FIELDS}")

# The whole-number fields as bits, from the record's own declaration.
cdef unsigned int _whole = 0
for _field in WHOLE_FIELDS:
    _whole |= 1u << _field


cdef inline bint _blank(char c) noexcept:
    # What str.split() splits on, among ASCII: space, \t \n \v \f \r (and \x1c-\x1f,
    # which send the line to the original).
    return c == 32 or 9 <= c <= 13


cdef inline bint _digit(char c) noexcept:
    return 48 <= c <= 57


cdef inline object _value(int k, long long* ints, double* reals, unsigned int decimal):
    if decimal >> k & 1:
        return reals[k]
    return ints[k]


def plain_record(object line):
    """:func:`sitesim.workload.swf_ints.plain_record`, compiled."""
    if type(line) is not str or not PyUnicode_IS_ASCII(line):
        return _original(line)  # a str subclass, or non-ASCII text: the original decides
    cdef Py_ssize_t n = 0
    cdef const char* s = PyUnicode_AsUTF8AndSize(line, &n)
    cdef Py_ssize_t i = 0, start, digits
    cdef int count = 0
    cdef long long value
    cdef long long ints[N_FIELDS]
    cdef double reals[N_FIELDS]
    cdef unsigned int decimal = 0
    cdef bint negative
    cdef char c
    cdef char* end = NULL
    while True:
        while i < n and _blank(s[i]):
            i += 1
        if i == n:
            break
        c = s[i]
        if count == N_FIELDS:
            if c == 45 or c == 46 or _digit(c):
                return None  # a 19th token
            return _original(line)
        start = i
        negative = c == 45  # '-'
        if negative:
            i += 1
        digits = i
        value = 0
        while i < n and _digit(s[i]):
            if i - digits < MAX_DIGITS:
                value = value * 10 + (s[i] - 48)
            i += 1
        digits = i - digits
        if i < n and s[i] == 46:  # '.': a decimal, digits on both sides
            i += 1
            if digits == 0 or i == n or not _digit(s[i]):
                return _token_end(s, i, n, line)
            while i < n and _digit(s[i]):
                i += 1
            if i < n and not _blank(s[i]):
                return _token_end(s, i, n, line)
            if _whole >> count & 1:
                return None  # a decimal in a whole-number field
            reals[count] = PyOS_string_to_double(s + start, &end, NULL)
            if not isfinite(reals[count]):
                return None
            decimal |= 1u << count
            count += 1
            continue
        if i < n and not _blank(s[i]):
            return _token_end(s, i, n, line)
        if digits == 0:
            return None  # a lone minus sign
        if digits > MAX_DIGITS:
            return _original(line)
        if s[start + negative] == 48 and (digits > 1 or negative):
            return None  # a leading zero, or -0: not canonical text
        ints[count] = -value if negative else value
        count += 1
    if count != N_FIELDS:
        return None
    record = SwfRecord(
        _value(0, ints, reals, decimal), _value(1, ints, reals, decimal), _value(2, ints, reals, decimal),
        _value(3, ints, reals, decimal), _value(4, ints, reals, decimal), _value(5, ints, reals, decimal),
        _value(6, ints, reals, decimal), _value(7, ints, reals, decimal), _value(8, ints, reals, decimal),
        _value(9, ints, reals, decimal), _value(10, ints, reals, decimal), _value(11, ints, reals, decimal),
        _value(12, ints, reals, decimal), _value(13, ints, reals, decimal), _value(14, ints, reals, decimal),
        _value(15, ints, reals, decimal), _value(16, ints, reals, decimal), _value(17, ints, reals, decimal),
    )
    if not decimal:
        record.text = line
    return record


cdef object _token_end(const char* s, Py_ssize_t i, Py_ssize_t n, object line):
    """A token that is not a plain number, stopped at ``s[i]``: None where the original
    says so for certain (the character is one of the twin's own, so the tokens so far
    are the original's), else the original's answer."""
    cdef char c = s[i] if i < n else 32
    if c == 45 or c == 46 or _digit(c) or _blank(c):
        return None
    return _original(line)
