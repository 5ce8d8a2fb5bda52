/**
 * ECharts' production bundle: the same library as `echarts`, built without its development checks
 * (which read `process.env.NODE_ENV` thousands of times a page, each a call into C++). It ships no
 * types of its own; they are the main entry's.
 */
declare module 'echarts/dist/echarts.esm.min' {
  export * from 'echarts';
}
