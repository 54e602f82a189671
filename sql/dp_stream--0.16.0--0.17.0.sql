-- dp_stream 0.16.0 -> 0.17.0.  The sections below are what this update
-- changes; each object's final form is in sql/dp_stream.sql too, and
-- test/regress/sql/upgrade.sql checks that a database updated from 0.16.0
-- has the objects of a fresh install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.17.0'" to load this file. \quit
