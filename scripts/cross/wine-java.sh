#!/usr/bin/env bash
# A Windows JVM under Wine, for the Java smoke test's children (scripts/test-windows.sh sets
# TXN_ROCKSDB_WINE_JAVA to the java.exe of a Windows JDK). exec: the child JVM is this process, so
# that the test's kill (SIGKILL) ends the Windows JVM at once, as TerminateProcess would.
exec nice -n 19 wine "${TXN_ROCKSDB_WINE_JAVA:?set TXN_ROCKSDB_WINE_JAVA to a Windows java.exe}" "$@"
