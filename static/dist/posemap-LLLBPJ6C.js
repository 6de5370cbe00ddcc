import{e as a,f as b,g as c,h as d}from"./chunk-ZYOFGS3C.js";import"./chunk-LYJR45XX.js";import"./chunk-GKNFYBUA.js";export{c as fitToElement,a as loadFleetMap,d as mountPoseMap,b as poseOfPayload};
