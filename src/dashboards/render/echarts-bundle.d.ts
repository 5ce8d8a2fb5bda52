/**
 * ECharts' single-file ES module bundle: the same library as `echarts`, whose development checks are
 * compiled in as constants instead of reading `process.env.NODE_ENV` (about 11,000 times a page, each a
 * call into C++). It ships no types of its own; they are the main entry's.
 */
declare module 'echarts/dist/echarts.esm' {
  export * from 'echarts';
}
